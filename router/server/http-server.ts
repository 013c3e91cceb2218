import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Cancel } from '../core/cancel.js';
import { RouterError } from '../core/errors.js';
import {
  clientGone,
  isJson,
  json,
  openAIError,
  readBody,
  SHUTDOWN,
  SHUTDOWN_FRAME,
  shuttingDown,
} from './http-replies.js';
import type { Router } from '../router.js';
import { ENDPOINTS, send, type Endpoint } from './endpoints.js';

/** A listening router. */
export interface RouterServer {
  readonly server: Server;
  readonly origin: string;
  readonly port: number;
  /**
   * Stops taking requests, lets those in flight finish for `graceMs` (the config's
   * `server.shutdownGrace` by default), then ends the rest: a waiting request gets 503, a live
   * stream an explicit error event, never a silent cut.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Options for `startRouterServer`. */
export interface RouterServerOptions {
  host?: string;
  port?: number;
  /** Bearer tokens a client must present; empty means open. */
  authTokens?: readonly string[];
  maxBodyBytes?: number;
  /** Called with errors the server survived (never with request bodies or keys). */
  onError?: (error: unknown) => void;
}

/** The deadline a client asked for: our header in ms, or the OpenAI SDK's `x-stainless-timeout` in seconds. */
function clientDeadlineMs(req: IncomingMessage, header: string): number | undefined {
  const ours = Number(req.headers[header]);
  const sdk = Number(req.headers['x-stainless-timeout']) * 1000;
  const a = Number.isFinite(ours) && ours > 0 ? ours : Infinity;
  const b = Number.isFinite(sdk) && sdk > 0 ? sdk : Infinity;
  const min = Math.min(a, b);
  return min === Infinity ? undefined : min;
}

/**
 * Serves a router as OpenAI- and Anthropic-compatible APIs: `POST /v1/chat/completions`, `POST
 * /v1/responses` and `POST /v1/messages` (each streaming or not), `POST /v1/embeddings`,
 * `GET /v1/models`, `GET /healthz`, Prometheus `GET /metrics` and a JSON `GET /state` of every
 * target's circuits, capacity and score. A client that disconnects cancels its upstream attempt.
 */
export async function startRouterServer(router: Router, options: RouterServerOptions = {}): Promise<RouterServer> {
  // What its adapters and cache affinity load on first use, loaded now: no request waits on it.
  await router.warmUp();
  const host = options.host ?? router.config.server.host;
  const tokens = new Set(options.authTokens ?? []);
  const maxBody = options.maxBodyBytes ?? router.config.server.maxBodyBytes;
  const onError = options.onError ?? (() => {});
  const forward = router.config.forwardHeaders.map((h) => h.toLowerCase());
  const deadlineHeader = router.config.deadline.header.toLowerCase();
  // Requests being answered (by their abort controllers), for a drain on close.
  const live = new Set<Cancel>();
  let closing = false;
  let drained: (() => void) | undefined;
  const whenDrained = () => (live.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (drained = resolve)));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    const endpoint = ENDPOINTS[path];
    const codec = endpoint?.codec;
    // Errors before routing, in the shape of the API the path names (Anthropic's for /v1/messages).
    const fail = (
      status: number,
      message: string,
      type: string,
      code: string | null,
      headers?: Record<string, string>,
    ) =>
      codec
        ? send(res, codec.error(status, type, code, message, headers))
        : openAIError(res, status, message, type, code, headers);
    if (tokens.size > 0) {
      // Anthropic's SDKs send the key as `x-api-key`.
      const header = req.headers['x-api-key'];
      const token =
        /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ??
        (typeof header === 'string' ? header.trim() : undefined);
      if (!token || !tokens.has(token))
        return fail(
          401,
          'Missing or invalid router token. Send Authorization: Bearer <token>.',
          'invalid_request_error',
          'invalid_api_key',
        );
    }
    if (path === '/metrics' && req.method === 'GET') {
      const body = router.metrics();
      res.writeHead(200, {
        'content-type': 'text/plain; version=0.0.4; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
      });
      return void res.end(body);
    }
    if (path === '/state' && req.method === 'GET') return json(res, 200, router.state());
    if (path === '/v1/models' && req.method === 'GET') {
      return json(res, 200, {
        object: 'list',
        data: router.modelNames().map((id) => ({ id, object: 'model', created: 0, owned_by: 'throttlelab' })),
      });
    }
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

    const { text, tooLarge } = await readBody(req, maxBody);
    if (tooLarge)
      return fail(413, `Request body is larger than ${maxBody} bytes.`, 'invalid_request_error', 'request_too_large', {
        connection: 'close',
      });
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
    live.add(aborter);
    try {
      await answer(res, aborter, body, text, req, endpoint);
    } finally {
      live.delete(aborter);
      if (live.size === 0) drained?.();
    }
  };

  const answer = async (
    res: ServerResponse,
    aborter: Cancel,
    body: unknown,
    text: string,
    req: IncomingMessage,
    endpoint: Endpoint,
  ) => {
    const codec = endpoint.codec;
    if (codec) {
      const refused = codec.preflight?.(req.headers);
      if (refused) return send(res, refused);
      const decoded = codec.decode(body);
      if (!decoded.ok) return send(res, decoded.reply);
      body = decoded.req;
    }
    const routed = await router.route(body, {
      signal: aborter,
      deadlineMs: clientDeadlineMs(req, deadlineHeader),
      forward: fwd(req),
      api: endpoint.api,
      // The body is the request itself only where no codec translated it.
      raw: codec ? undefined : text,
    });
    const result = codec ? codec.encode(routed, (body as { model: string }).model) : routed;
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
  };

  const fwd = (req: IncomingMessage): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const h of forward) {
      const v = req.headers[h];
      if (typeof v === 'string') out[h] = v;
    }
    return out;
  };

  const server = createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    if (closing) {
      req.resume();
      return shuttingDown(res);
    }
    handle(req, res).catch((error) => {
      if (clientGone(req, res, error)) return void res.destroy();
      onError(error);
      if (!res.headersSent && !res.destroyed)
        openAIError(
          res,
          500,
          'The router failed to handle this request; this is a throttlelab bug.',
          'server_error',
          'router_error',
        );
      else res.destroy();
    });
  });
  const s = router.config.server;
  server.keepAliveTimeout = 30_000;
  // A client trickling its headers or body is cut with 408 (checked every second).
  server.requestTimeout = s.requestTimeout;
  server.headersTimeout = Math.min(s.headersTimeout, s.requestTimeout);
  server.maxConnections = s.maxConnections;
  server.on('clientError', (e: NodeJS.ErrnoException, socket) => {
    const status =
      e.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : e.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      const hint =
        code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL'
          ? `the host ${host} is not an address of this machine; use 127.0.0.1 or ::1`
          : 'pick another port or use port 0';
      reject(
        new RouterError(
          'ROUTER_SERVER_START_FAILED',
          `Failed to start the router on ${host}:${options.port ?? router.config.server.port}: ${(error as Error).message}. ${hint[0]!.toUpperCase()}${hint.slice(1)}.`,
          { cause: error },
        ),
      );
    };
    server.once('error', fail);
    server.listen(options.port ?? router.config.server.port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    origin: host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`,
    port,
    async close(o = {}) {
      const graceMs = o.graceMs ?? s.shutdownGrace;
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if (live.size > 0 && graceMs > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([whenDrained(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
        clearTimeout(timer);
      }
      for (const a of live) a.abort(SHUTDOWN);
      await whenDrained();
      server.closeAllConnections();
      await closed;
    },
  };
}
