import type { FakeClock } from '../../simulator/core/fake-clock.js';
import { playReply, type ReplySink } from '../../simulator/engine/play-reply.js';
import type { Reply } from '../../simulator/engine/reply.js';

/** A reply as a client would have seen it, with the time each write happened. */
export interface Collected {
  status: number | null;
  headers: Record<string, string>;
  body: string;
  writes: Array<{ at: number; data: string }>;
  ending: 'end' | 'reset' | 'aborted' | 'open';
}

/**
 * Plays a reply on a fake clock, advancing time until it finishes; a reply still open after
 * `maxMs` of simulated time is aborted, as a client giving up would.
 */
export async function collectReply(reply: Reply, clock: FakeClock, maxMs = 3_600_000): Promise<Collected> {
  const out: Collected = { status: null, headers: {}, body: '', writes: [], ending: 'open' };
  const sink: ReplySink = {
    head(status, headers) {
      out.status = status;
      out.headers = { ...headers };
    },
    write(data) {
      out.body += data;
      out.writes.push({ at: clock.now(), data });
    },
    end(data) {
      if (data !== undefined) {
        out.body += data;
        out.writes.push({ at: clock.now(), data });
      }
      out.ending = 'end';
    },
    reset() {
      out.ending = 'reset';
    },
  };
  const ac = new AbortController();
  let done = false;
  const playing = Promise.resolve(playReply(reply, sink, clock, ac.signal)).finally(() => {
    done = true;
  });
  const deadline = clock.now() + maxMs;
  await Promise.resolve();
  while (!done && clock.now() < deadline) await clock.advance(Math.min(1000, deadline - clock.now()));
  if (!done) {
    ac.abort();
    out.ending = out.ending === 'open' ? 'aborted' : out.ending;
  }
  await playing;
  return out;
}
