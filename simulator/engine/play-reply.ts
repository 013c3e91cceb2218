import type { AbortLike } from '../core/cancel.js';
import type { Clock } from '../core/clock.js';
import type { HeaderMap } from '../vendors/types.js';
import type { Reply } from './reply.js';

/** What a transport does with each step. */
export interface ReplySink {
  head(status: number, headers: HeaderMap, more: boolean): void;
  write(data: string): void;
  /** Ends the body, writing `data` last when given (one write instead of two). */
  end(data?: string): void;
  /** Drops the connection abruptly. */
  reset(): void;
}

/** The abort reason a transport gives when it shuts down with replies still in flight. */
export const SHUTDOWN = Symbol('throttlelab.simulator.shutdown');

interface Cursor {
  i: number;
  tokens: number;
}

function untilAborted(signal: AbortLike): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

// Plays steps up to the next wait or hang; true when the reply is over.
function playUntilPause(reply: Reply, sink: ReplySink, clock: Clock, at: Cursor): boolean {
  const steps = reply.steps;
  for (; at.i < steps.length; at.i++) {
    const step = steps[at.i]!;
    switch (step.op) {
      case 'wait':
      case 'hang':
        return false;
      case 'head': {
        const next = steps[at.i + 1];
        sink.head(reply.status, reply.headers, next !== undefined && next.op !== 'write' && next.op !== 'end');
        reply.onHead(clock.now());
        break;
      }
      case 'write':
        at.tokens += step.tokens ?? 0;
        if (steps[at.i + 1]?.op === 'end') {
          sink.end(step.data);
          at.i++;
        } else {
          sink.write(step.data);
        }
        break;
      case 'end':
        sink.end();
        break;
      case 'reset':
        sink.reset();
        break;
    }
  }
  return true;
}

async function playPaused(reply: Reply, sink: ReplySink, clock: Clock, signal: AbortLike, at: Cursor): Promise<void> {
  let aborted = false;
  try {
    for (;;) {
      const step = reply.steps[at.i]!;
      if (step.op === 'wait') await clock.sleep(step.ms, signal);
      else {
        await untilAborted(signal);
        aborted = true;
        return;
      }
      if (signal.aborted) {
        aborted = true;
        return;
      }
      at.i++;
      if (playUntilPause(reply, sink, clock, at)) return;
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    aborted = true;
  } finally {
    reply.onFinish(clock.now(), {
      aborted,
      stopped: aborted && signal.reason === SHUTDOWN,
      tokensDelivered: at.tokens,
    });
  }
}

/**
 * Plays a reply's steps into a sink, sleeping on `clock`, and reports the outcome exactly once.
 * Replies without waits play synchronously and return undefined; others return a promise.
 * `signal` aborts when the client goes away.
 */
export function playReply(reply: Reply, sink: ReplySink, clock: Clock, signal: AbortLike): Promise<void> | undefined {
  const at: Cursor = { i: 0, tokens: 0 };
  let done: boolean;
  try {
    done = playUntilPause(reply, sink, clock, at);
  } catch (error) {
    reply.onFinish(clock.now(), { aborted: false, tokensDelivered: at.tokens });
    throw error;
  }
  if (!done) return playPaused(reply, sink, clock, signal, at);
  reply.onFinish(clock.now(), { aborted: false, tokensDelivered: at.tokens });
  return undefined;
}
