import type { Rng } from '../core/rng.js';
import type { LedgerRow } from '../ledger/ledger-row.js';
import { MAX_HOLD_FILLERS, type FaultSpec } from '../scenario/schema.js';
import type { ChatRequest, Completion, EncodeContext, ErrorKind, HeaderMap, VendorProfile } from '../vendors/types.js';
import { randomHex } from '../vendors/wire-format.js';
import { StepBuilder } from './build-steps.js';
import type { Step } from './reply.js';

/** What a successful (admitted) answer needs to be scripted. */
export interface AnswerInput {
  profile: VendorProfile;
  ctx: EncodeContext;
  chat: ChatRequest;
  completion: Completion;
  /** Response headers so far; a malformed fault may change the content type, a plain body sets its length. */
  headers: HeaderMap;
  /** The response-shaping fault that applies, if any. */
  fault: FaultSpec | undefined;
  ttftMs: number;
  msPerToken: number;
  tokensPerFrame: number;
  rng: Rng;
}

/** The scripted answer, and what the ledger should expect of it. */
export interface AnswerScript {
  steps: Step[];
  /** The status the ledger records: 0 when the connection dies before any status. */
  status: number;
  errorType: string | null;
  tokensOut: number;
  end: LedgerRow['end'];
}

/**
 * Scripts an admitted request's answer: a body after the processing time, or a stream frame by
 * frame at the sampled pace, shaped by a fault (hang, reset, keep-alive hold, malformed body,
 * stream break). Pure: the steps are played later by a transport.
 */
export function scriptAnswer(a: AnswerInput): AnswerScript {
  const { profile, ctx, chat, completion, headers, fault } = a;
  const count = completion.tokens.length;
  const b = new StepBuilder();

  if (fault?.kind === 'hang' || fault?.kind === 'reset') {
    if (fault.afterHeaders) b.head();
    const end = fault.kind === 'reset' ? 'reset' : 'pending';
    return { steps: b.finish(fault.kind), status: fault.afterHeaders ? 200 : 0, errorType: null, tokensOut: 0, end };
  }

  const held = fault?.kind === 'keep-alive';
  if (fault?.kind === 'keep-alive') {
    b.head();
    const filler = profile.keepAlive(chat.stream);
    // Validation bounds the fillers; a fault built in code is held to the same bound.
    const interval = Math.max(fault.interval, fault.holdFor / MAX_HOLD_FILLERS);
    for (let t = 0; t < fault.holdFor; t += interval) b.write(filler).wait(Math.min(interval, fault.holdFor - t));
    if (fault.then === 'close') return { steps: b.end(), status: 200, errorType: null, tokensOut: 0, end: 'truncated' };
  }

  if (!chat.stream) {
    let body = profile.completion(completion, ctx);
    let end: LedgerRow['end'] = 'complete';
    if (fault?.kind === 'malformed') {
      end = 'malformed';
      if (fault.mode === 'truncated-json') body = body.slice(0, Math.floor(body.length / 2));
      else if (fault.mode === 'garbage') body = `\u0000\u001f<html>${randomHex(a.rng, 24)}</htm`;
      else if (fault.mode === 'empty') body = '';
      else headers['content-type'] = 'text/html; charset=utf-8';
    }
    // A held answer already sent its head; its length could not be known then.
    if (!held) headers['content-length'] = String(Buffer.byteLength(body));
    b.wait(ctx.processingMs ?? 0);
    if (!held) b.head();
    b.write(body, count);
    return { steps: b.end(), status: 200, errorType: null, tokensOut: count, end };
  }

  const frames = profile.stream(completion, ctx, chat.includeUsage);
  if (!held) b.head();
  if (frames.opening) b.write(frames.opening);
  b.wait(a.ttftMs);
  for (const f of frames.head) b.write(f);
  let end: LedgerRow['end'] = 'complete';
  let framesSent = 0;
  const breakStream = (fault: FaultSpec & { kind: 'stream-break' }, sent: number): AnswerScript => {
    const planned = fault.end === 'close' ? 'truncated' : fault.end === 'reset' ? 'reset' : 'error-event';
    if (fault.end === 'error-event') {
      const spec = { kind: fault.error as ErrorKind };
      b.write(frames.error ? frames.error(spec) : profile.streamError(spec, ctx));
    }
    const errorType = fault.end === 'error-event' ? fault.error : null;
    const steps = fault.end === 'reset' ? b.finish('reset') : b.end();
    return { steps, status: 200, errorType, tokensOut: sent, end: planned };
  };
  for (let from = 0; from < count; from += a.tokensPerFrame) {
    const to = Math.min(count, from + a.tokensPerFrame);
    if (fault?.kind === 'stream-break' && framesSent === fault.afterChunks) return breakStream(fault, from);
    if (from > 0) b.wait(a.msPerToken * (to - from));
    let frame = frames.content(from, to);
    if (fault?.kind === 'malformed' && from === 0) {
      frame = frame.slice(0, Math.floor(frame.length / 2)) + '\n\n';
      end = 'malformed';
    }
    b.write(frame, to - from);
    framesSent++;
  }
  // An answer shorter than `afterChunks` still breaks: after its last content frame, before the
  // finish, so a fault that was applied always cut its stream.
  if (fault?.kind === 'stream-break') return breakStream(fault, count);
  for (const f of frames.tail) b.write(f);
  return { steps: b.end(), status: 200, errorType: null, tokensOut: count, end };
}
