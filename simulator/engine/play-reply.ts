import type { Clock } from '../core/clock.js';
import type { HeaderMap } from '../vendors/types.js';
import type { Reply } from './reply.js';

/** What a transport does with each step. */
export interface ReplySink {
  head(status: number, headers: HeaderMap, more: boolean): void;
  write(data: string): void;
  end(): void;
  /** Drops the connection abruptly. */
  reset(): void;
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Plays a reply's steps into a sink, sleeping on `clock`, and reports the outcome exactly once.
 * `signal` aborts when the client goes away.
 */
export async function playReply(reply: Reply, sink: ReplySink, clock: Clock, signal: AbortSignal): Promise<void> {
  let tokensDelivered = 0;
  let aborted = false;
  try {
    const steps = reply.steps;
    for (let i = 0; i < steps.length; i++) {
      if (signal.aborted) {
        aborted = true;
        break;
      }
      const step = steps[i]!;
      switch (step.op) {
        case 'wait':
          await clock.sleep(step.ms, signal);
          break;
        case 'head': {
          const next = steps[i + 1];
          sink.head(reply.status, reply.headers, next !== undefined && next.op !== 'write' && next.op !== 'end');
          reply.onHead(clock.now());
          break;
        }
        case 'write':
          sink.write(step.data);
          tokensDelivered += step.tokens ?? 0;
          break;
        case 'end':
          sink.end();
          break;
        case 'reset':
          sink.reset();
          break;
        case 'hang':
          await untilAborted(signal);
          aborted = true;
          break;
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    aborted = true;
  } finally {
    reply.onFinish(clock.now(), { aborted, tokensDelivered });
  }
}
