import type { CallContext, HttpCall } from '../adapters/adapter.js';
import { createSseByteReader } from '../adapters/sse.js';
import type { CapacityBook } from '../core/capacity.js';
import { classifyResponse } from '../core/classify.js';
import { toAbortSignal, type AbortLike } from '../core/cancel.js';
import type { Clock } from '../core/clock.js';
import { attemptTimeoutMs } from '../core/attempt-timeout.js';
import { remainingMs, type Deadline } from '../core/deadline.js';
import type { AttemptOutcome, ChatRequest, Usage } from '../core/types.js';
import { decodeSignals } from '../signals/decode.js';
import { headerGetter, type Signals } from '../core/signals.js';
import { abortLikeSend, type HttpResponse, type Transport } from '../transport/transport.js';
import { AttemptControl, type BufferBudget } from './attempt-control.js';
import { relayStream, type CommittedStream } from './relay-stream.js';
import { StreamOpening } from './stream-opening.js';
import type { TargetRuntime } from './target.js';

export type { BufferBudget };

/** What an attempt needs from the router. */
export interface AttemptEnv {
  clock: Clock;
  transport: Transport;
  capacity: CapacityBook;
  attemptTimeoutMs: number;
  firstTokenTimeoutMs: number;
  /** Whether an attempt that could fail over is cut to leave room to (`attemptTimeoutMs`). */
  leaveRoomToFailOver: boolean;
  defaultMaxTokens: number;
  /** Largest answer read from one provider. */
  maxResponseBytes: number;
  /** Shared by all attempts: answers being read, in bytes. */
  buffers: BufferBudget;
  /** Removes the router's own key values from any provider text passed on. */
  redact: (text: string) => string;
}

/** One attempt's request. */
export interface AttemptInput {
  target: TargetRuntime;
  req: ChatRequest;
  /** An embeddings request goes to the adapter's embeddings endpoint (never streamed). */
  api?: 'chat' | 'embeddings';
  stream: boolean;
  clientWantsUsage: boolean;
  deadline: Deadline;
  /** The request's: its abort reaches the attempt, its wait and the provider. */
  signal: AbortLike;
  forward: Record<string, string>;
  /** The client's body text, when it is this request unchanged (see `CallContext.raw`). */
  raw?: string;
  admissionTokens: number;
  /** Another target could take the request if this attempt is given up (see `attemptTimeoutMs`). */
  canFailOver?: boolean;
}

/**
 * An attempt's result: a failure value, a JSON answer, a stream committed after its first content,
 * or `unsent`: the request could not even be built for this provider (a local failure, never the
 * provider's; it is not an attempt and counts against nobody).
 */
export type AttemptResult =
  | { kind: 'unsent'; message: string; endedAt: number }
  | { kind: 'failed'; outcome: AttemptOutcome; signals?: Signals; endedAt: number }
  | { kind: 'json'; body: string; usage: Usage; endedAt: number; firstByteAt: number }
  | CommittedStream;

function callContextOf(env: AttemptEnv, input: AttemptInput, now: number): CallContext {
  const { target } = input;
  return {
    baseUrl: target.providerConfig.baseUrl.replace(/\/+$/, ''),
    model: target.model,
    apiKey: target.apiKey,
    apiVersion: target.providerConfig.apiVersion,
    region: target.providerConfig.region,
    forward: input.forward,
    raw: input.raw,
    defaultMaxTokens: env.defaultMaxTokens,
    now,
  };
}

function send(t: Transport, call: HttpCall, control: AttemptControl): Promise<HttpResponse> {
  const sendAbortLike = abortLikeSend(t);
  return sendAbortLike ? sendAbortLike.call(t, call, control.cancel) : t.send(call, toAbortSignal(control.cancel));
}

/** A refusal's body read: the capacity it announced learned, and the attempt's failure. */
function refusal(env: AttemptEnv, target: TargetRuntime, res: HttpResponse, text: string): AttemptResult {
  const get = headerGetter(res.headers);
  const signals = decodeSignals(target.adapter.vendor, res.status, get, text, env.clock.now());
  env.capacity.observe(target.id, signals, env.clock.now());
  // The provider's words may be passed on to the client (a 4xx): never with our key in them.
  const outcome = classifyResponse(res.status, signals, env.redact(text));
  return { kind: 'failed', outcome, signals, endedAt: env.clock.now() };
}

/** A JSON answer read whole: parsed by the adapter, or a failure when it is not an answer. */
/** The answer's text; its pieces (and their concatenation) are let go before it is parsed. */
function decodeReleasing(chunks: Buffer[]): string {
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  chunks.length = 0;
  return bytes.toString('utf8');
}

function jsonAnswer(
  env: AttemptEnv,
  input: AttemptInput,
  ctx: CallContext,
  res: HttpResponse,
  chunks: Buffer[],
  firstByteAt: number,
): AttemptResult {
  const { target } = input;
  const text = decodeReleasing(chunks);
  const parsed =
    input.api === 'embeddings' && target.adapter.embeddings
      ? target.adapter.embeddings.parse(text, input.req)
      : target.adapter.parseCompletion(text, ctx);
  if ('error' in parsed)
    return { kind: 'failed', outcome: { kind: 'server_error', status: res.status }, endedAt: env.clock.now() };
  const body = env.redact(parsed.body);
  return { kind: 'json', body, usage: parsed.usage, endedAt: env.clock.now(), firstByteAt };
}

/** The time the attempt may take before it is given up (`attemptTimeoutMs`). */
function timeoutOf(env: AttemptEnv, input: AttemptInput, started: number): number {
  const usual = input.stream ? input.target.ttft : input.target.latency;
  return attemptTimeoutMs({
    timeoutMs: env.attemptTimeoutMs,
    remainingMs: remainingMs(input.deadline, started),
    usualMs: usual.known ? usual.get(0) : undefined,
    canFailOver: env.leaveRoomToFailOver && input.canFailOver === true,
  });
}

/**
 * Makes one upstream attempt under the request's deadline: `min(attempt timeout, time left)`
 * for the whole call (less where it could fail over: `attemptTimeoutMs`), and for streams a real first-token timer that keep-alive bytes and comments
 * do not re-arm. A stream is returned only once its first content token has arrived, so failing
 * over before that point is always possible.
 */
export async function runAttempt(env: AttemptEnv, input: AttemptInput): Promise<AttemptResult> {
  const { clock } = env;
  const { target, stream, deadline } = input;
  const started = clock.now();
  if (input.signal.aborted) return { kind: 'failed', outcome: { kind: 'aborted' }, endedAt: started };
  const ctx = callContextOf(env, input, started);
  const budget = timeoutOf(env, input, started);
  const control = new AttemptControl(
    env,
    input.signal,
    target.id,
    input.admissionTokens,
    stream ? Math.min(env.firstTokenTimeoutMs, budget) : budget,
  );
  // Building the request is our own work on the client's body: if it throws (a body nested
  // thousands deep), that is no failure of the provider's and must not count against it.
  let call: HttpCall;
  try {
    const embeddings = input.api === 'embeddings' ? target.adapter.embeddings : undefined;
    call = embeddings
      ? embeddings.buildRequest(input.req, ctx)
      : await target.adapter.buildRequest(input.req, ctx, stream);
  } catch (error) {
    control.cleanup();
    return { kind: 'unsent', message: (error as Error)?.message ?? String(error), endedAt: clock.now() };
  }
  const failed = (outcome: AttemptOutcome): AttemptResult => ({ kind: 'failed', outcome, endedAt: clock.now() });

  try {
    const res = await send(env.transport, call, control);
    const firstByteAt = clock.now();
    if (res.status < 200 || res.status >= 300) return refusal(env, target, res, await res.text(256 * 1024));
    const get = headerGetter(res.headers);
    env.capacity.observe(
      target.id,
      decodeSignals(target.adapter.vendor, res.status, get, undefined, firstByteAt),
      firstByteAt,
    );
    if (!stream) {
      control.phase = 'body';
      // An answer that says it is too big is refused before a byte of it is read.
      const declared = Number(get('content-length') ?? Number.NaN);
      if (Number.isFinite(declared) && declared > 0) {
        if (declared > env.maxResponseBytes) {
          res.dispose();
          return failed({
            kind: 'network_error',
            message: `response body of ${declared} bytes over ${env.maxResponseBytes}`,
          });
        }
        if (!control.reserveAnswer(declared)) {
          res.dispose();
          return failed(control.outcomeOf(undefined));
        }
      }
      const chunks = await res.collect((chunk) => control.onBodyChunk(chunk, deadline), env.maxResponseBytes);
      control.bodyRead();
      if (!control.reserveDecoding()) return failed(control.outcomeOf(undefined));
      return jsonAnswer(env, input, ctx, res, chunks, firstByteAt);
    }

    control.phase = 'first-token';
    const reader = target.adapter.streamReader?.() ?? createSseByteReader();
    const translator = target.adapter.streamTranslator(ctx, input.clientWantsUsage);
    const opening = new StreamOpening(reader, translator, env.redact, res.status);
    const iterator = res.body[Symbol.asyncIterator]();
    while (!opening.committed) {
      const next = await iterator.next();
      const failure = next.done ? opening.end() : opening.push(next.value);
      if (failure) {
        res.dispose();
        return failed(failure);
      }
      if (next.done) break;
      // Bytes without an event are keep-alive filler: the provider holds the request in its queue.
      control.held = !opening.sawEvent;
    }
    return relayStream(opening, iterator, control, clock, deadline);
  } catch (error) {
    return failed(control.outcomeOf(error));
  } finally {
    if (!control.handedOff) control.cleanup();
  }
}
