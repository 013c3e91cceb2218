import type { StreamEventReader, StreamFailure, StreamTranslator, Translated } from '../adapters/adapter.js';
import { errorFrame } from '../adapters/openai-chunks.js';
import type { SseEvent } from '../adapters/sse.js';
import type { Clock } from '../core/clock.js';
import { remainingMs, type Deadline } from '../core/deadline.js';
import type { Usage } from '../core/types.js';
import { AbortReason } from './abort-reason.js';
import type { AttemptControl } from './attempt-control.js';
import { clientStreamFailure } from './client-stream-failure.js';
import type { StreamOpening } from './stream-opening.js';

const frame = (json: string) => `data: ${json}\n\n`;

/** How a committed stream ended, reported once when it is over. */
export interface StreamEnd {
  endedAt: number;
  usage: Usage;
  /** Undefined when the stream finished properly. */
  failure?: StreamFailure;
  aborted: boolean;
}

/** A stream committed after its first content: what to send first, the rest as it comes, and its end. */
export interface CommittedStream {
  kind: 'stream';
  first: string[];
  rest: AsyncGenerator<string, void, undefined>;
  firstContentAt: number;
  done: Promise<StreamEnd>;
}

/**
 * Hands a stream that has its first content to the client: from here only the deadline bounds
 * it, and the stream, not the attempt, lets go of what the attempt holds when it ends.
 */
export function relayStream(
  opening: StreamOpening,
  iterator: AsyncIterator<Uint8Array | string>,
  control: AttemptControl,
  clock: Clock,
  deadline: Deadline,
): CommittedStream {
  const firstContentAt = clock.now();
  control.restartTimer(remainingMs(deadline, firstContentAt));
  control.handedOff = true;
  let resolveDone!: (end: StreamEnd) => void;
  const done = new Promise<StreamEnd>((resolve) => (resolveDone = resolve));
  const state: StreamState = {
    iterator,
    reader: opening.reader,
    translator: opening.translator,
    finished: opening.finished,
    lastUsage: opening.lastUsage,
    contentEvents: 1,
    leftover: opening.leftover,
    redact: opening.redact,
  };
  const report = (end: Omit<StreamEnd, 'endedAt'>) => resolveDone({ ...end, endedAt: clock.now() });
  const rest = closedIfNeverStarted(continueStream(state, control, report), () =>
    endStream(state, control, report, undefined, true),
  );
  return { kind: 'stream', first: opening.first, rest, firstContentAt, done };
}

interface StreamState {
  iterator: AsyncIterator<Uint8Array | string>;
  reader: StreamEventReader;
  translator: StreamTranslator;
  finished: boolean;
  lastUsage?: Usage;
  contentEvents: number;
  /** Events that arrived with the first content and still need relaying. */
  leftover: SseEvent[];
  redact: (text: string) => string;
}

/**
 * Relays a committed stream. It ends with `data: [DONE]` only when the provider finished; a
 * failure after the first token ends it with an explicit error event in the router's own words
 * (`clientStreamFailure`), never a silent close and never the provider's error text.
 */
async function* continueStream(
  s: StreamState,
  control: AttemptControl,
  report: (end: Omit<StreamEnd, 'endedAt'>) => void,
): AsyncGenerator<string, void, undefined> {
  const signal = control.cancel;
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
        if (signal.reason === AbortReason.CLIENT_GONE) {
          aborted = true;
          return;
        }
        failure =
          signal.reason === AbortReason.TIMEOUT
            ? { message: 'The request deadline passed during the stream.', type: 'timeout', code: 'deadline_exceeded' }
            : {
                message: 'The provider connection failed during the stream.',
                type: 'upstream_error',
                code: 'stream_interrupted',
              };
        yield `data: ${errorFrame(clientStreamFailure(failure))}\n\n`;
        return;
      }
      const events = first ? s.leftover : next.done ? s.reader.end() : s.reader.push(next.value);
      if (s.reader.malformed !== undefined) {
        failure = {
          message: `The provider sent a malformed stream (${s.reader.malformed}).`,
          type: 'upstream_error',
          code: 'malformed_stream',
        };
        yield `data: ${errorFrame(clientStreamFailure(failure))}\n\n`;
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
        yield `${out}data: ${errorFrame(clientStreamFailure(failure))}\n\n`;
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
    endStream(s, control, report, failure, aborted || signal.reason === AbortReason.CLIENT_GONE);
  }
}

/** What ends a committed stream however it ends: the attempt's resources freed, the upstream closed, its end reported. */
function endStream(
  s: StreamState,
  control: AttemptControl,
  report: (end: Omit<StreamEnd, 'endedAt'>) => void,
  failure: StreamFailure | undefined,
  aborted: boolean,
): void {
  control.cleanup();
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
