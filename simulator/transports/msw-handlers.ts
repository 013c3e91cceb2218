import { http, HttpResponse, type HttpHandler } from 'msw';
import { playReply, type ReplySink } from '../engine/play-reply.js';
import type { Simulator } from '../simulator.js';

const encoder = new TextEncoder();

/**
 * msw request handlers that serve a simulator in-process at `origin`, playing the very same reply
 * scripts as the HTTP server, so statuses, headers and bodies match it byte for byte.
 *
 * @example
 * const sim = createSimulator(scenario, { seed: 7 });
 * const server = setupServer(...createMswHandlers(sim, 'https://llm.test'));
 * server.listen();
 * const client = new OpenAI({ baseURL: 'https://llm.test/openai/v1', apiKey: 'sk-sim-openai' });
 */
export function createMswHandlers(sim: Simulator, origin = 'http://throttlelab.local'): HttpHandler[] {
  const base = origin.replace(/\/+$/, '');
  return [
    http.all(`${base}/*`, async ({ request }) => {
      const arrivalAt = sim.clock.now();
      const url = new URL(request.url);
      const raw = await request.text();
      const tooLarge = Buffer.byteLength(raw) > sim.scenario.simulator.maxBodyBytes;
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const reply = sim.handle(
        { method: request.method, url: url.pathname + url.search, headers, body: tooLarge ? '' : raw },
        { arrivalAt, bodyTooLarge: tooLarge },
      );
      return new Promise<Response>((resolve) => {
        let controller!: ReadableStreamDefaultController<Uint8Array>;
        let headed = false;
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            controller = c;
          },
        });
        const bytes = (data: string): Uint8Array =>
          reply.binary ? new Uint8Array(Buffer.from(data, 'latin1')) : encoder.encode(data);
        const sink: ReplySink = {
          head(status, h) {
            headed = true;
            resolve(new HttpResponse(body as never, { status, headers: h }) as unknown as Response);
          },
          write(data) {
            controller.enqueue(bytes(data));
          },
          end(data) {
            if (data !== undefined) controller.enqueue(bytes(data));
            controller.close();
          },
          reset() {
            if (headed) controller.error(new TypeError('terminated: the simulator reset the connection'));
            else resolve(HttpResponse.error() as unknown as Response);
          },
        };
        request.signal.addEventListener('abort', () => {
          if (!headed) resolve(HttpResponse.error() as unknown as Response);
        });
        try {
          playReply(reply, sink, sim.clock, request.signal)?.catch(() => {
            if (!headed) resolve(HttpResponse.error() as unknown as Response);
          });
        } catch {
          if (!headed) resolve(HttpResponse.error() as unknown as Response);
        }
      });
    }),
  ];
}
