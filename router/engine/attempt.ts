// Over 300 lines on purpose: one upstream attempt (send, classify, learn capacity, stream until
// first content under its timeouts) is a single sequence with shared cancellation.
import type { CallContext, HttpCall, StreamEventReader, StreamFailure, Translated } from '../adapters/adapter.js';
import { errorFrame } from '../adapters/openai-chunks.js';
import { createSseByteReader, type SseEvent } from '../adapters/sse.js';
import type { CapacityBook } from '../core/capacity.js';
import { classifyResponse } from '../core/classify.js';
import { Cancel, toAbortSignal, type AbortLike } from '../core/cancel.js';
import { startTimer, type Clock } from '../core/clock.js';
import { attemptBudgetMs, remainingMs, type Deadline } from '../core/deadline.js';
import type { AttemptOutcome, ChatRequest, Usage } from '../core/types.js';
import { decodeSignals } from '../signals/decode.js';
import { headerGetter, type Signals } from '../core/signals.js';
import { abortLikeSend, type Transport } from '../transport/transport.js';
import type { TargetRuntime } from './target.js';

const TIMEOUT = Symbol('attempt-timeout');
const CLIENT_GONE = Symbol('client-gone');
const OVER_BUDGET = Symbol('over-buffer-budget');

/** Bytes of answers being read from every provider at once, against one bound. */
export interface BufferBudget {
  held: number;
  readonly max: number;
}

/** What an attempt needs from the router. */
export interface AttemptEnv {
  clock: Clock;
  transport: Transport;
  capacity: CapacityBook;
  attemptTimeoutMs: number;
  firstTokenTimeoutMs: number;
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
}

/** How a committed stream ended, reported once when it is over. */
export interface StreamEnd {
  endedAt: number;
  usage: Usage;
  /** Undefined when the stream finished properly. */
  failure?: StreamFailure;
  aborted: boolean;
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
  | {
      kind: 'stream';
      first: string[];
      rest: AsyncGenerator<string, void, undefined>;
      firstContentAt: number;
      done: Promise<StreamEnd>;
    };

const frame = (json: string) => `data: ${json}\n\n`;

// Whether a body chunk holds anything but the blank lines a held request is padded with.
function hasContent(chunk: Uint8Array): boolean {
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk[i]!;
    if (c !== 0x0a && c !== 0x0d && c !== 0x20 && c !== 0x09) return true;
  }
  return false;
}

const timer = startTimer;

/**
 * Makes one upstream attempt under the request's deadline: `min(attempt timeout, time left)`
 * for the whole call, and for streams a real first-token timer that keep-alive bytes and comments
 * do not re-arm. A stream is returned only once its first content token has arrived, so failing
 * over before that point is always possible.
 */
export async function runAttempt(env: AttemptEnv, input: AttemptInput): Promise<AttemptResult> {
  const { clock, capacity } = env;
  const { target, stream, deadline } = input;
  const started = clock.now();
  if (input.signal.aborted) return { kind: 'failed', outcome: { kind: 'aborted' }, endedAt: started };
  const ctx: CallContext = {
    baseUrl: target.providerConfig.baseUrl.replace(/\/+$/, ''),
    model: target.model,
    apiKey: target.apiKey,
    apiVersion: target.providerConfig.apiVersion,
    region: target.providerConfig.region,
    forward: input.forward,
    raw: input.raw,
    defaultMaxTokens: env.defaultMaxTokens,
    now: started,
  };
  // The attempt's own cancellation (its timers, the client's abort, the buffer bound), derived from
  // the request's signal: a plain object, as nothing outside the process ever listens to it.
  const ac = new Cancel();
  const onParentAbort = () => ac.abort(CLIENT_GONE);
  input.signal.addEventListener('abort', onParentAbort, { once: true });
  const budget = attemptBudgetMs(deadline, started, env.attemptTimeoutMs);
  let cancelTimer = timer(clock, stream ? Math.min(env.firstTokenTimeoutMs, budget) : budget, () => ac.abort(TIMEOUT));
  let phase: 'headers' | 'first-token' | 'body' = 'headers';
  let handedOff = false;
  let buffered = 0;
  // Reserved before the first await: requests selected in the same tick must see each other.
  capacity.reserve(target.id, input.admissionTokens);
  const cleanup = () => {
    cancelTimer();
    input.signal.removeEventListener('abort', onParentAbort);
    capacity.release(target.id, input.admissionTokens);
    env.buffers.held -= buffered;
    buffered = 0;
  };
  // Building the request is our own work on the client's body: if it throws (a body nested
  // thousands deep), that is no failure of the provider's and must not count against it.
  let call: HttpCall;
  try {
    const embeddings = input.api === 'embeddings' ? target.adapter.embeddings : undefined;
    call = embeddings
      ? embeddings.buildRequest(input.req, ctx)
      : await target.adapter.buildRequest(input.req, ctx, stream);
  } catch (error) {
    cleanup();
    return { kind: 'unsent', message: (error as Error)?.message ?? String(error), endedAt: clock.now() };
  }
  const failed = (outcome: AttemptOutcome, signals?: Signals): AttemptResult => ({
    kind: 'failed',
    outcome,
    signals,
    endedAt: clock.now(),
  });

  try {
    const t = env.transport;
    const send = abortLikeSend(t);
    const res = await (send ? send.call(t, call, ac) : t.send(call, toAbortSignal(ac)));
    const firstByteAt = clock.now();
    const get = headerGetter(res.headers);
    if (res.status < 200 || res.status >= 300) {
      const text = await res.text(256 * 1024);
      const signals = decodeSignals(target.adapter.vendor, res.status, get, text, clock.now());
      capacity.observe(target.id, signals, clock.now());
      // The provider's words may be passed on to the client (a 4xx): never with our key in them.
      return failed(classifyResponse(res.status, signals, env.redact(text)), signals);
    }
    capacity.observe(
      target.id,
      decodeSignals(target.adapter.vendor, res.status, get, undefined, firstByteAt),
      firstByteAt,
    );
    if (!stream) {
      // A held request (DeepSeek) answers 200 at once and then sends only blank lines: until the
      // body's first real byte, the first-token timer runs as well as the attempt's own.
      phase = 'body';
      let cancelFirstToken: (() => void) | undefined;
      let started = false;
      const chunks = await res.collect((chunk) => {
        // One bound over every answer being read at once: six 60 MB answers must not take 1.3 GB.
        buffered += chunk.length;
        env.buffers.held += chunk.length;
        if (env.buffers.held > env.buffers.max) ac.abort(OVER_BUDGET);
        if (started) return;
        started = hasContent(chunk);
        if (!started && !cancelFirstToken) {
          phase = 'first-token';
          cancelFirstToken = timer(clock, Math.min(env.firstTokenTimeoutMs, remainingMs(deadline, clock.now())), () =>
            ac.abort(TIMEOUT),
          );
        } else if (started && cancelFirstToken) {
          phase = 'body';
          cancelFirstToken();
        }
      }, env.maxResponseBytes);
      cancelFirstToken?.();
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      const parsed =
        input.api === 'embeddings' && target.adapter.embeddings
          ? target.adapter.embeddings.parse(text, input.req)
          : target.adapter.parseCompletion(text, ctx);
      if ('error' in parsed) return failed({ kind: 'server_error', status: res.status });
      const body = env.redact(parsed.body);
      return { kind: 'json', body, usage: parsed.usage, endedAt: clock.now(), firstByteAt };
    }

    phase = 'first-token';
    const reader = target.adapter.streamReader?.() ?? createSseByteReader();
    const translator = target.adapter.streamTranslator(ctx, input.clientWantsUsage);
    const iterator = res.body[Symbol.asyncIterator]();
    const first: string[] = [];
    let committed = false;
    let lastUsage: Usage | undefined;
    let finished = false;
    let leftover: SseEvent[] = [];
    const take = (t: Translated): StreamFailure | undefined => {
      for (const c of t.chunks) first.push(env.redact(frame(c)));
      if (t.usage) lastUsage = t.usage;
      if (t.content) committed = true;
      if (t.done) finished = true;
      return t.error;
    };
    while (!committed) {
      const next = await iterator.next();
      if (next.done) {
        for (const ev of reader.end()) take(translator.onEvent(ev.data, ev.event));
        const t = translator.onEnd();
        take(t);
        if (finished || !t.error) break;
        res.dispose();
        return failed({ kind: 'server_error', status: res.status });
      }
      const events = reader.push(next.value);
      if (reader.malformed !== undefined) {
        res.dispose();
        return failed({ kind: 'stream_error', message: `malformed_stream: ${reader.malformed}` });
      }
      for (let i = 0; i < events.length; i++) {
        const error = take(translator.onEvent(events[i]!.data, events[i]!.event));
        if (error) {
          res.dispose();
          const overloaded = /overload/i.test(`${error.type} ${error.code} ${error.message}`);
          return failed(overloaded ? { kind: 'overloaded', status: 200 } : { kind: 'server_error', status: 200 });
        }
        // Once content is in hand the stream is committed; later events belong to the client.
        if (committed) {
          leftover = events.slice(i + 1);
          break;
        }
      }
    }
    // Committed: the first content token is in hand. From here only the deadline bounds the stream.
    const firstContentAt = clock.now();
    cancelTimer();
    cancelTimer = timer(clock, remainingMs(deadline, firstContentAt), () => ac.abort(TIMEOUT));
    handedOff = true;
    let resolveDone!: (end: StreamEnd) => void;
    const done = new Promise<StreamEnd>((resolve) => (resolveDone = resolve));
    const state: StreamState = {
      iterator,
      reader,
      translator,
      finished,
      lastUsage,
      contentEvents: 1,
      leftover,
      redact: env.redact,
    };
    const report = (end: Omit<StreamEnd, 'endedAt'>) => resolveDone({ ...end, endedAt: clock.now() });
    const rest = closedIfNeverStarted(continueStream(state, ac, cleanup, report), () =>
      endStream(state, cleanup, report, undefined, true),
    );
    return { kind: 'stream', first, rest, firstContentAt, done };
  } catch (error) {
    if (ac.reason === CLIENT_GONE) return failed({ kind: 'aborted' });
    if (ac.reason === TIMEOUT) return failed({ kind: 'timeout', phase });
    // Too much is being read at once: this answer is given up, as a provider too slow to fit would be.
    if (ac.reason === OVER_BUDGET) return failed({ kind: 'server_error', status: 200 });
    return failed({ kind: 'network_error', message: (error as Error)?.message ?? String(error) });
  } finally {
    if (!handedOff) cleanup();
  }
}

interface StreamState {
  iterator: AsyncIterator<Uint8Array | string>;
  reader: StreamEventReader;
  translator: ReturnType<TargetRuntime['adapter']['streamTranslator']>;
  finished: boolean;
  lastUsage?: Usage;
  contentEvents: number;
  /** Events that arrived with the first content and still need relaying. */
  leftover: SseEvent[];
  redact: (text: string) => string;
}

/**
 * Relays a committed stream. It ends with `data: [DONE]` only when the provider finished; a
 * failure after the first token ends it with an explicit error event, never a silent close.
 */
async function* continueStream(
  s: StreamState,
  signal: AbortLike,
  cleanup: () => void,
  report: (end: Omit<StreamEnd, 'endedAt'>) => void,
): AsyncGenerator<string, void, undefined> {
  let failure: StreamFailure | undefined;
  let aborted = false;
  try {
    if (s.finished) {
      yield 'data: [DONE]\n\n';
      return;
    }
    for (let first = true; ; first = false) {
      let next: IteratorResult<Uint8Array | string>;
      try {
        next = first ? { done: false, value: '' } : await s.iterator.next();
      } catch {
        if (signal.reason === CLIENT_GONE) {
          aborted = true;
          return;
        }
        failure =
          signal.reason === TIMEOUT
            ? { message: 'The request deadline passed during the stream.', type: 'timeout', code: 'deadline_exceeded' }
            : {
                message: 'The provider connection failed during the stream.',
                type: 'upstream_error',
                code: 'stream_interrupted',
              };
        yield `data: ${errorFrame(failure)}\n\n`;
        return;
      }
      const events = first ? s.leftover : next.done ? s.reader.end() : s.reader.push(next.value);
      if (s.reader.malformed !== undefined) {
        failure = {
          message: `The provider sent a malformed stream (${s.reader.malformed}).`,
          type: 'upstream_error',
          code: 'malformed_stream',
        };
        yield `data: ${errorFrame(failure)}\n\n`;
        return;
      }
      const translated: Translated[] = events.map((ev) => s.translator.onEvent(ev.data, ev.event));
      if (next.done) translated.push(s.translator.onEnd());
      let out = '';
      for (const t of translated) {
        for (const c of t.chunks) out += frame(c);
        if (t.content) s.contentEvents++;
        if (t.usage) s.lastUsage = t.usage;
        if (t.done) s.finished = true;
        if (t.error && !s.finished) failure ??= t.error;
      }
      if (out) out = s.redact(out);
      if (failure) {
        yield `${out}data: ${s.redact(errorFrame(failure))}\n\n`;
        return;
      }
      if (s.finished) {
        yield `${out}data: [DONE]\n\n`;
        return;
      }
      if (out) yield out;
      if (next.done) return;
    }
  } finally {
    endStream(s, cleanup, report, failure, aborted || signal.reason === CLIENT_GONE);
  }
}

/** What ends a committed stream however it ends: the attempt's resources freed, the upstream closed, its end reported. */
function endStream(
  s: StreamState,
  cleanup: () => void,
  report: (end: Omit<StreamEnd, 'endedAt'>) => void,
  failure: StreamFailure | undefined,
  aborted: boolean,
): void {
  cleanup();
  void s.iterator.return?.();
  report({
    usage: s.lastUsage ?? { promptTokens: 0, completionTokens: s.contentEvents, estimated: true },
    failure,
    aborted,
  });
}

/**
 * `return()` on an async generator that was never started ends it without running its `finally`
 * (a client gone after the stream was committed but before its first write): `onUnstarted` runs
 * then instead, so the stream's capacity, timer and upstream are let go and its end reported.
 */
function closedIfNeverStarted<T>(
  gen: AsyncGenerator<T, void, undefined>,
  onUnstarted: () => void,
): AsyncGenerator<T, void, undefined> {
  let started = false;
  const settle = () => {
    if (started) return;
    started = true;
    onUnstarted();
  };
  const wrapped: AsyncGenerator<T, void, undefined> = {
    next: (...args) => {
      started = true;
      return gen.next(...args);
    },
    return: (value) => {
      settle();
      return gen.return(value);
    },
    throw: (error) => {
      settle();
      return gen.throw(error);
    },
    [Symbol.asyncIterator]: () => wrapped,
  };
  return wrapped;
}
