import type { HttpCall, HttpResponse, Transport } from '../router/index.js';
import { playReply, type ReplySink, type Simulator } from '../simulator/index.js';

/**
 * A router Transport that calls a simulator in-process, with no sockets, so that a router and
 * a simulator sharing one fake clock run in simulated time.
 */
export function createInProcessTransport(sim: Simulator): Transport {
  return {
    send(call: HttpCall, signal: AbortSignal): Promise<HttpResponse> {
      const url = new URL(call.url);
      const reply = sim.handle({
        method: call.method,
        url: url.pathname + url.search,
        headers: Object.fromEntries(Object.entries(call.headers).map(([k, v]) => [k.toLowerCase(), v])),
        body: call.body ?? '',
      });
      const queue: Array<Uint8Array | null | Error> = [];
      let wake: (() => void) | undefined;
      const push = (item: Uint8Array | null | Error) => {
        queue.push(item);
        wake?.();
      };
      const encoder = new TextEncoder();
      return new Promise<HttpResponse>((resolve, reject) => {
        const body: AsyncIterable<Uint8Array> = {
          async *[Symbol.asyncIterator]() {
            for (;;) {
              if (queue.length === 0) await new Promise<void>((r) => (wake = r));
              const item = queue.shift()!;
              if (item === null) return;
              if (item instanceof Error) throw item;
              yield item;
            }
          },
        };
        const response = (status: number, headers: Record<string, string>): HttpResponse => ({
          status,
          headers,
          body,
          async text() {
            let out = '';
            for await (const c of body) out += new TextDecoder().decode(c);
            return out;
          },
          async collect(onChunk) {
            const out: Buffer[] = [];
            for await (const c of body) {
              const b = Buffer.from(c);
              out.push(b);
              onChunk(b);
            }
            return out;
          },
          dispose: () => push(null),
        });
        const sink: ReplySink = {
          head: (status, headers) => resolve(response(status, headers)),
          write: (data) => push(encoder.encode(data)),
          end: (data) => {
            if (data !== undefined) push(encoder.encode(data));
            push(null);
          },
          reset: () => {
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
          },
          { once: true },
        );
        try {
          playReply(reply, sink, sim.clock, signal)?.catch(() => {});
        } catch (e) {
          reject(e);
        }
      });
    },
    close: async () => {},
  };
}
