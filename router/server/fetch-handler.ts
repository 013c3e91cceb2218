import type { AbortLike } from '../core/cancel.js';
import type { Router } from '../router.js';
import { ENDPOINTS } from './endpoints.js';

const encoder = new TextEncoder();

/** A chat request handed over in process: headers by lower-case name, the body as text. */
export interface DirectCall {
  headers: Readonly<Record<string, string>>;
  body: string;
  /** The client's: an AbortSignal, or anything as cheap that aborts the same way (`toAbortSignal` makes an AbortSignal of it). */
  signal: AbortLike;
  /** The API path (`/v1/responses`, `/v1/messages`, `/v1/embeddings`); chat completions when absent. */
  path?: string;
}

/** The router's answer in process: a whole body, or the frames of a stream as they come. */
export type DirectAnswer =
  | { status: number; headers: Record<string, string>; body: string }
  | { status: 200; headers: Record<string, string>; frames: AsyncIterable<string> };

const errorAnswer = (status: number, message: string, type: string, code: string | null): DirectAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: { message, type, param: null, code } }),
});

/** The deadline a client asked for: our header in ms, or the OpenAI SDK's `x-stainless-timeout` in seconds. */
function clientDeadlineMs(headers: Readonly<Record<string, string>>, header: string): number | undefined {
  const ours = Number(headers[header]);
  const sdk = Number(headers['x-stainless-timeout']) * 1000;
  // The smaller of the two that are positive numbers, without an array per request.
  const a = Number.isFinite(ours) && ours > 0 ? ours : undefined;
  const b = Number.isFinite(sdk) && sdk > 0 ? sdk : undefined;
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

// Whether a text is over `max` bytes as UTF-8. A UTF-16 unit is 1 to 3 bytes (a surrogate pair 4
// for two), so the length alone settles it unless it lies between a third of `max` and `max`.
function overBytes(text: string, max: number): boolean {
  if (text.length > max) return true;
  return text.length * 3 > max && Buffer.byteLength(text) > max;
}

/**
 * `POST /v1/chat/completions` (or the API `call.path` names) in process, with no server, no
 * socket and no Web stream: what a run in simulated time calls for each request. Answered as `startRouterServer` answers it; an
 * aborted signal (the client went away) cancels the upstream attempt.
 */
export function routerDirectHandler(router: Router): (call: DirectCall) => Promise<DirectAnswer> {
  const forward = router.config.forwardHeaders.map((h) => h.toLowerCase());
  const deadlineHeader = router.config.deadline.header.toLowerCase();
  const max = router.config.server.maxBodyBytes;
  return async (call) => {
    const endpoint = call.path === undefined ? undefined : ENDPOINTS[call.path];
    const codec = endpoint?.codec;
    // Errors before routing, in the shape of the API the path names (Anthropic's for /v1/messages).
    const fail = (status: number, message: string, type: string, code: string | null): DirectAnswer =>
      codec ? codec.error(status, type, code, message) : errorAnswer(status, message, type, code);
    if (call.path !== undefined && !endpoint)
      return errorAnswer(404, `Invalid URL (POST ${call.path})`, 'invalid_request_error', null);
    if (overBytes(call.body, max))
      return fail(413, `Request body is larger than ${max} bytes.`, 'invalid_request_error', 'request_too_large');
    let body: unknown;
    try {
      body = JSON.parse(call.body);
    } catch {
      return fail(
        400,
        'We could not parse the JSON body of your request. The API expects a JSON payload.',
        'invalid_request_error',
        null,
      );
    }
    // A promise only when a fleet's store has items to fetch: most requests pay no await here.
    const pending = codec && router.responseItems.forRequest(call.headers, body);
    const items = pending instanceof Promise ? await pending : pending;
    if (codec) {
      const refused = codec.preflight?.(call.headers);
      if (refused) return refused;
      const decoded = codec.decode(body, items);
      if (!decoded.ok) return decoded.reply;
      body = decoded.req;
    }
    const fwd: Record<string, string> = {};
    for (const h of forward) if (call.headers[h] !== undefined) fwd[h] = call.headers[h]!;
    const routed = await router.route(body, {
      signal: call.signal,
      deadlineMs: clientDeadlineMs(call.headers, deadlineHeader),
      forward: fwd,
      ...(endpoint ? { api: endpoint.api } : {}),
      // The body is the request as it came, as the HTTP server passes it: an OpenAI-style
      // adapter edits its top-level members rather than serialising the parsed request again.
      // Only where no codec translated it.
      raw: codec ? undefined : call.body,
    });
    const result = codec ? codec.encode(routed, (body as { model: string }).model, items) : routed;
    if (result.kind === 'response') return { status: result.status, headers: result.headers, body: result.body };
    const { first, rest } = result;
    return {
      status: 200,
      headers: result.headers,
      frames: {
        [Symbol.asyncIterator]: () => {
          let opening: string | undefined = first.join('');
          return {
            // Not an async function: it would wrap every chunk's promise from `rest` in one more.
            next: () => {
              if (opening === undefined) return rest.next();
              const value = opening;
              opening = undefined;
              return Promise.resolve({ done: false, value });
            },
            return: async () => {
              await rest.return(undefined);
              return { done: true, value: undefined };
            },
          };
        },
      },
    };
  };
}

/**
 * The router as a fetch handler, `(Request) => Promise<Response>`, with no server and no socket:
 * every API the server serves (`POST /v1/chat/completions`, `/v1/responses`, `/v1/messages`,
 * `/v1/embeddings`, streaming or not), `GET /v1/models` and `GET /healthz`, answered as
 * `startRouterServer` answers them. A request whose signal aborts (the client went away) cancels
 * its upstream attempt.
 */
export function routerFetchHandler(router: Router): (request: Request) => Promise<Response> {
  const direct = routerDirectHandler(router);
  const json = (status: number, value: unknown) =>
    new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/v1/models' && request.method === 'GET')
      return json(200, {
        object: 'list',
        data: router.modelNames().map((id) => ({ id, object: 'model', created: 0, owned_by: 'throttlelab' })),
      });
    const refuse = (status: number, message: string) => {
      const a = errorAnswer(status, message, 'invalid_request_error', null) as { body: string };
      return new Response(a.body, { status, headers: { 'content-type': 'application/json' } });
    };
    if (!ENDPOINTS[path]) return refuse(404, `Invalid URL (${request.method} ${path})`);
    if (request.method !== 'POST') return refuse(405, `Method ${request.method} is not allowed on ${path}; use POST.`);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => (headers[k] = v));
    const answer = await direct({ headers, body: await request.text(), signal: request.signal, path });
    if ('body' in answer) return new Response(answer.body, { status: answer.status, headers: answer.headers });
    const frames = answer.frames[Symbol.asyncIterator]();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await frames.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await frames.return?.();
      },
    });
    return new Response(stream, { status: 200, headers: answer.headers });
  };
}
