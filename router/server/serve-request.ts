import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InboundCodec } from '../apis/api-codec.js';
import { Cancel } from '../core/cancel.js';
import type { RouteResult } from '../engine/route-result.js';
import type { Router } from '../router.js';
import { ENDPOINTS, send, type Endpoint } from './endpoints.js';
import { isJson, json, openAIError, readBody, SHUTDOWN, SHUTDOWN_FRAME, shuttingDown } from './http-replies.js';
import type { LiveRequests } from './live-requests.js';

/** What serving a request needs from its server. */
export interface ServeContext {
  router: Router;
  /** Bearer tokens a client must present; empty means open. */
  tokens: ReadonlySet<string>;
  maxBody: number;
  /** Headers passed on to providers, lower-case. */
  forward: readonly string[];
  /** The header a client names its deadline with, lower-case. */
  deadlineHeader: string;
  live: LiveRequests;
}

type Fail = (
  status: number,
  message: string,
  type: string,
  code: string | null,
  headers?: Record<string, string>,
) => void;

/** The deadline a client asked for: our header in ms, or the OpenAI SDK's `x-stainless-timeout` in seconds. */
function clientDeadlineMs(req: IncomingMessage, header: string): number | undefined {
  const ours = Number(req.headers[header]);
  const sdk = Number(req.headers['x-stainless-timeout']) * 1000;
  const a = Number.isFinite(ours) && ours > 0 ? ours : Infinity;
  const b = Number.isFinite(sdk) && sdk > 0 ? sdk : Infinity;
  const min = Math.min(a, b);
  return min === Infinity ? undefined : min;
}

/** Whether the client presented one of the router's tokens (any client, when there are none). */
function isAuthorized(req: IncomingMessage, tokens: ReadonlySet<string>): boolean {
  if (tokens.size === 0) return true;
  // Anthropic's SDKs send the key as `x-api-key`.
  const header = req.headers['x-api-key'];
  const token =
    /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ??
    (typeof header === 'string' ? header.trim() : undefined);
  return !!token && tokens.has(token);
}

/** Answers the router's own GET views (metrics, state, models); false for any other path. */
function serveView(router: Router, path: string, res: ServerResponse): boolean {
  if (path === '/metrics') {
    const body = router.metrics();
    res.writeHead(200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
    return true;
  }
  if (path === '/state') {
    json(res, 200, router.state());
    return true;
  }
  if (path === '/v1/models') {
    const data = router.modelNames().map((id) => ({ id, object: 'model', created: 0, owned_by: 'throttlelab' }));
    json(res, 200, { object: 'list', data });
    return true;
  }
  return false;
}

/**
 * Serves one HTTP request in stages: the health check, the client's token, the router's views,
 * the API path, its method and content type, the body read and parsed, then the routing itself.
 */
export async function serveRequest(ctx: ServeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path === '/healthz') return json(res, 200, { status: 'ok' });
  const endpoint = ENDPOINTS[path];
  const codec = endpoint?.codec;
  // Errors before routing, in the shape of the API the path names (Anthropic's for /v1/messages).
  const fail: Fail = (status, message, type, code, headers) =>
    codec
      ? send(res, codec.error(status, type, code, message, headers))
      : openAIError(res, status, message, type, code, headers);
  if (!isAuthorized(req, ctx.tokens))
    return fail(
      401,
      'Missing or invalid router token. Send Authorization: Bearer <token>.',
      'invalid_request_error',
      'invalid_api_key',
    );
  if (req.method === 'GET' && serveView(ctx.router, path, res)) return;
  if (!endpoint) return openAIError(res, 404, `Invalid URL (${req.method} ${path})`, 'invalid_request_error', null);
  if (req.method !== 'POST')
    return fail(405, `Method ${req.method} is not allowed on ${path}; use POST.`, 'invalid_request_error', null);
  // A cross-site form or text/plain POST needs no CORS preflight; a JSON one does (never granted).
  if (!isJson(req.headers['content-type'])) {
    req.resume();
    return fail(
      415,
      'Send the request body as JSON, with content-type: application/json.',
      'invalid_request_error',
      'unsupported_media_type',
    );
  }
  const { text, tooLarge } = await readBody(req, ctx.maxBody);
  if (tooLarge)
    return fail(
      413,
      `Request body is larger than ${ctx.maxBody} bytes.`,
      'invalid_request_error',
      'request_too_large',
      {
        connection: 'close',
      },
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return fail(
      400,
      'We could not parse the JSON body of your request. The API expects a JSON payload.',
      'invalid_request_error',
      null,
    );
  }
  // The request's one cancellation (the client gone, or the shutdown): a plain Cancel rather
  // than an AbortController, as only the router's own code listens to it.
  const aborter = new Cancel();
  res.on('close', () => {
    if (!res.writableFinished) aborter.abort();
  });
  ctx.live.add(aborter);
  try {
    await answer(ctx, { req, res, aborter, endpoint }, body, text);
  } finally {
    ctx.live.delete(aborter);
  }
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  aborter: Cancel;
  endpoint: Endpoint;
}

/** Routes a parsed request and writes what the router answered, through the endpoint's codec if it has one. */
async function answer(ctx: ServeContext, x: Exchange, body: unknown, text: string): Promise<void> {
  const { req, res, aborter } = x;
  const codec = x.endpoint.codec;
  // A promise only when a fleet's store has items to fetch: most requests pay no await here.
  const pending = codec && ctx.router.responseItems.forRequest(req.headers, body);
  const items = pending instanceof Promise ? await pending : pending;
  if (codec) {
    const refused = codec.preflight?.(req.headers);
    if (refused) return send(res, refused);
    const decoded = codec.decode(body, items);
    if (!decoded.ok) return send(res, decoded.reply);
    body = decoded.req;
  }
  const routed = await ctx.router.route(body, {
    signal: aborter,
    deadlineMs: clientDeadlineMs(req, ctx.deadlineHeader),
    forward: forwardedHeaders(req, ctx.forward),
    api: x.endpoint.api,
    // The body is the request itself only where no codec translated it.
    raw: codec ? undefined : text,
  });
  const result = codec ? codec.encode(routed, (body as { model: string }).model, items) : routed;
  if (res.destroyed) {
    if (result.kind === 'stream') await result.rest.return(undefined);
    return;
  }
  if (aborter.reason === SHUTDOWN && result.kind === 'response') {
    if (!codec) return shuttingDown(res);
    return send(
      res,
      codec.error(503, 'service_unavailable', 'router_shutdown', 'The router is shutting down.', {
        connection: 'close',
        'retry-after': '1',
      }),
    );
  }
  if (result.kind === 'response') {
    res.writeHead(result.status, result.headers);
    return void res.end(result.body);
  }
  await writeStream(res, result, aborter, codec);
}

/** Writes a stream as it comes, waiting out back-pressure; a stop ends it with an explicit error event. */
async function writeStream(
  res: ServerResponse,
  result: Extract<RouteResult, { kind: 'stream' }>,
  aborter: Cancel,
  codec: InboundCodec | undefined,
): Promise<void> {
  res.writeHead(200, result.headers);
  res.write(result.first.join(''));
  let last = '';
  try {
    for await (const frame of result.rest) {
      last = frame;
      if (aborter.aborted) break;
      if (!res.write(frame))
        await new Promise<void>((resolve) => res.once('drain', () => resolve()).once('close', () => resolve()));
    }
  } finally {
    // Cut by a stop: the client is told, never left with a stream that merely ends.
    if (aborter.reason === SHUTDOWN && !res.destroyed) {
      if (!codec && !/data: (\[DONE\]|\{"error")/.test(last)) res.write(`data: ${SHUTDOWN_FRAME}\n\n`);
      else if (codec && !codec.streamEnded.test(last)) res.write(codec.shutdownFrame);
    }
    res.end();
  }
}

/** The configured headers the client sent, to pass on to providers. */
function forwardedHeaders(req: IncomingMessage, forward: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of forward) {
    const v = req.headers[h];
    if (typeof v === 'string') out[h] = v;
  }
  return out;
}
