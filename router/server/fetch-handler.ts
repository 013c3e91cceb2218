import type { Router } from '../router.js';

const encoder = new TextEncoder();

function jsonResponse(status: number, value: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function openAIError(status: number, message: string, type: string, code: string | null): Response {
  return jsonResponse(status, { error: { message, type, param: null, code } });
}

/** The deadline a client asked for: our header in ms, or the OpenAI SDK's `x-stainless-timeout` in seconds. */
function clientDeadlineMs(headers: Headers, header: string): number | undefined {
  const ours = Number(headers.get(header));
  const sdk = Number(headers.get('x-stainless-timeout')) * 1000;
  const values = [ours, sdk].filter((v) => Number.isFinite(v) && v > 0);
  return values.length > 0 ? Math.min(...values) : undefined;
}

/**
 * The router as a fetch handler, `(Request) => Promise<Response>`, with no server and no socket:
 * `POST /v1/chat/completions` (streaming or not), `GET /v1/models` and `GET /healthz`, answered as
 * `startRouterServer` answers them. A request whose signal aborts (the client went away) cancels
 * its upstream attempt. This is how a run in simulated time calls the router in process.
 */
export function routerFetchHandler(router: Router): (request: Request) => Promise<Response> {
  const forward = router.config.forwardHeaders.map((h) => h.toLowerCase());
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (path === '/healthz') return jsonResponse(200, { status: 'ok' });
    if (path === '/v1/models' && request.method === 'GET')
      return jsonResponse(200, {
        object: 'list',
        data: router.modelNames().map((id) => ({ id, object: 'model', created: 0, owned_by: 'throttlelab' })),
      });
    if (path !== '/v1/chat/completions')
      return openAIError(404, `Invalid URL (${request.method} ${path})`, 'invalid_request_error', null);
    if (request.method !== 'POST')
      return openAIError(
        405,
        `Method ${request.method} is not allowed on ${path}; use POST.`,
        'invalid_request_error',
        null,
      );
    const text = await request.text();
    if (Buffer.byteLength(text) > router.config.server.maxBodyBytes)
      return openAIError(
        413,
        `Request body is larger than ${router.config.server.maxBodyBytes} bytes.`,
        'invalid_request_error',
        'request_too_large',
      );
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return openAIError(
        400,
        'We could not parse the JSON body of your request. The API expects a JSON payload.',
        'invalid_request_error',
        null,
      );
    }
    const fwd: Record<string, string> = {};
    for (const h of forward) {
      const v = request.headers.get(h);
      if (v !== null) fwd[h] = v;
    }
    const result = await router.route(body, {
      signal: request.signal,
      deadlineMs: clientDeadlineMs(request.headers, router.config.deadline.header),
      forward: fwd,
    });
    if (result.kind === 'response')
      return new Response(result.body, { status: result.status, headers: result.headers });
    const rest = result.rest;
    let first: string | undefined = result.first.join('');
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (first !== undefined) {
          controller.enqueue(encoder.encode(first));
          first = undefined;
          return;
        }
        const next = await rest.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await rest.return(undefined);
      },
    });
    return new Response(stream, { status: 200, headers: result.headers });
  };
}
