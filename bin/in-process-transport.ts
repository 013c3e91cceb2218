import { takingAbortLike, type AbortLike, type HttpCall, type HttpResponse, type Transport } from '../router/index.js';
import { Cancel, playReply, type ReplySink, type Simulator } from '../simulator/index.js';

/** The path and query of an absolute URL (the simulator routes on them; its host is never resolved). */
function pathOf(url: string): string {
  const scheme = url.indexOf('://');
  const slash = scheme < 0 ? -1 : url.indexOf('/', scheme + 3);
  if (slash >= 0) return url.slice(slash);
  const u = new URL(url);
  return u.pathname + u.search;
}

/**
 * A router Transport that calls a simulator in-process, with no sockets, so that a router and
 * a simulator sharing one fake clock run in simulated time. The body is kept as the text the
 * simulator wrote: read whole (`text`) or streamed (`body`, text chunks the router's SSE reader
 * takes as they are), it is never encoded to bytes and back. A binary stream's chunks are bytes:
 * the simulator writes them as latin1 strings (one character per byte), as its HTTP server sends them.
 */
export function createInProcessTransport(sim: Simulator): Transport {
  return {
    send: takingAbortLike((call: HttpCall, signal: AbortLike): Promise<HttpResponse> => {
      // As undici does with a signal already aborted: nothing is sent. (Its listener would never
      // run, so the reply's promise would never settle.)
      if (signal.aborted) return Promise.reject(new Error('aborted'));
      const headers: Record<string, string> = {};
      for (const k in call.headers) headers[k.toLowerCase()] = call.headers[k]!;
      const reply = sim.handle({ method: call.method, url: pathOf(call.url), headers, body: call.body ?? '' });
      const queue: Array<string | null | Error> = [];
      let wake: (() => void) | undefined;
      const push = (item: string | null | Error) => {
        queue.push(item);
        const w = wake;
        wake = undefined;
        w?.();
      };
      // The queue's head: text (taken), or the end or error that ended the body (left in place,
      // so every later read sees it too).
      const take = (): string | null => {
        const item = queue[0]!;
        if (item === null) return null;
        if (item instanceof Error) throw item;
        queue.shift();
        return item;
      };
      /** Settles a read with the queue's head. */
      const settle = (resolve: (t: string | null) => void, reject: (e: unknown) => void) => {
        try {
          resolve(take());
        } catch (e) {
          reject(e);
        }
      };
      /**
       * The next piece of text, or null at the end (rejects with what ended the body). A plain
       * function, not an async one: a piece already queued costs one settled promise, and one
       * still to come one promise, which `push` settles (a stream reads this once per chunk).
       */
      const next = (): Promise<string | null> =>
        queue.length === 0
          ? new Promise((resolve, reject) => (wake = () => settle(resolve, reject)))
          : new Promise(settle);
      return new Promise<HttpResponse>((resolve, reject) => {
        const binary = reply.binary === true;
        // The caller's abort, or the body abandoned (dispose) while the reply still plays. A plain
        // Cancel, not an AbortController: one per attempt, and only the simulator listens to it.
        const hangUp = new Cancel();
        let ended = false;
        // A plain iterator rather than an async generator: one promise per chunk instead of a
        // generator's several. Once returned or failed it stays done, as a generator does.
        let returned = false;
        const done: IteratorResult<Uint8Array | string> = { done: true, value: undefined };
        const body: AsyncIterable<Uint8Array | string> = {
          [Symbol.asyncIterator]: () => ({
            next: () =>
              returned
                ? Promise.resolve(done)
                : next().then(
                    (t): IteratorResult<Uint8Array | string> =>
                      t === null ? done : { done: false, value: binary ? Buffer.from(t, 'latin1') : t },
                    (error: unknown) => {
                      returned = true;
                      throw error;
                    },
                  ),
            return: () => {
              returned = true;
              return Promise.resolve(done);
            },
          }),
        };
        const response = (status: number, headers: Record<string, string>): HttpResponse => ({
          status,
          headers,
          body,
          async text() {
            let out = '';
            for (let t = await next(); t !== null; t = await next()) out += t;
            return out;
          },
          async collect(onChunk) {
            const out: Buffer[] = [];
            for (let t = await next(); t !== null; t = await next()) {
              const b = Buffer.from(t, binary ? 'latin1' : 'utf8');
              out.push(b);
              onChunk(b);
            }
            return out;
          },
          // As a socket destroyed: a reply still playing is abandoned (the ledger says client-abort).
          dispose: () => {
            push(null);
            if (!ended) hangUp.abort();
          },
        });
        const sink: ReplySink = {
          head: (status, headers) => resolve(response(status, headers)),
          write: (data) => push(data),
          end: (data) => {
            ended = true;
            if (data !== undefined) push(data);
            push(null);
          },
          reset: () => {
            ended = true;
            const e = new Error('socket hang up');
            reject(e);
            push(e);
          },
        };
        signal.addEventListener(
          'abort',
          () => {
            const e = new Error('aborted');
            reject(e);
            push(e);
            if (!ended) hangUp.abort(signal.reason);
          },
          { once: true },
        );
        try {
          playReply(reply, sink, sim.clock, hangUp)?.catch(() => {});
        } catch (e) {
          reject(e);
        }
      });
    }),
    close: async () => {},
  };
}
