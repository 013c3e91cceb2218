import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { RouterError } from '../core/errors.js';
import { connectionCap, HEALTH_RESERVE } from './connection-cap.js';
import { clientGone, json, openAIError, SHUTDOWN, shuttingDown } from './http-replies.js';
import type { Router } from '../router.js';
import { LiveRequests } from './live-requests.js';
import { readOpenFilesLimit } from './open-files-limit.js';
import { serveRequest, type ServeContext } from './serve-request.js';

/** A listening router. */
export interface RouterServer {
  readonly server: Server;
  readonly origin: string;
  readonly port: number;
  /** Client connections kept at most: `server.maxConnections`, lowered to fit the open-files limit. */
  readonly maxConnections: number;
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
  /** The process's open-files limit (`ulimit -n`); read from a shell once when omitted. */
  openFilesLimit?: number;
  /** Called with errors the server survived (never with request bodies or keys). */
  onError?: (error: unknown) => void;
}

/** A client that broke HTTP itself (trickled, oversized headers, garbage) is answered on its socket. */
function onClientError(e: NodeJS.ErrnoException, socket: Socket): void {
  const status =
    e.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? '408 Request Timeout'
      : e.code === 'HPE_HEADER_OVERFLOW'
        ? '431 Request Header Fields Too Large'
        : '400 Bad Request';
  if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  else socket.destroy();
}

/** Listens on `host:port`; a failure says which of the two to change. */
function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      const hint =
        code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL'
          ? `the host ${host} is not an address of this machine; use 127.0.0.1 or ::1`
          : 'pick another port or use port 0';
      reject(
        new RouterError(
          'ROUTER_SERVER_START_FAILED',
          `Failed to start the router on ${host}:${port}: ${(error as Error).message}. ${hint[0]!.toUpperCase()}${hint.slice(1)}.`,
          { cause: error },
        ),
      );
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

// How long a connection past the cap may stay without sending its one request.
const OVERFLOW_IDLE_MS = 2000;

/** A request on a connection past the cap: `/healthz` is answered, anything else gets 503; either closes it. */
function serveOverflow(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  const headers = { connection: 'close' };
  if ((req.url ?? '/').split('?')[0] === '/healthz') return json(res, 200, { status: 'ok' }, headers);
  openAIError(
    res,
    503,
    'Failed to take the request: the router holds its most client connections (server.maxConnections). Retry later, or reuse a connection.',
    'server_error',
    'too_many_connections',
    { ...headers, 'retry-after': '1' },
  );
}

/** Marks connections past `cap` (up to {@link HEALTH_RESERVE} more are accepted) as overflow, short-lived. */
function trackConnections(server: Server, cap: number, overflow: WeakSet<Socket>): void {
  let open = 0;
  server.maxConnections = cap + HEALTH_RESERVE;
  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
    if (open <= cap) return;
    overflow.add(socket);
    socket.setTimeout(OVERFLOW_IDLE_MS, () => socket.destroy());
  });
}

/** An HTTP server serving `ctx`; a request that fails unexpectedly gets a 500, or its connection cut. */
function createRouterHttpServer(
  ctx: ServeContext,
  cap: number,
  isClosing: () => boolean,
  onError: (error: unknown) => void,
) {
  const overflow = new WeakSet<Socket>();
  const server = createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    if (overflow.has(req.socket)) return serveOverflow(req, res);
    if (isClosing()) {
      req.resume();
      return shuttingDown(res);
    }
    serveRequest(ctx, req, res).catch((error) => {
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
  const s = ctx.router.config.server;
  server.keepAliveTimeout = 30_000;
  // A client trickling its headers or body is cut with 408 (checked every second).
  server.requestTimeout = s.requestTimeout;
  server.headersTimeout = Math.min(s.headersTimeout, s.requestTimeout);
  trackConnections(server, cap, overflow);
  server.on('clientError', onClientError);
  return server;
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
  const ctx: ServeContext = {
    router,
    tokens: new Set(options.authTokens ?? []),
    maxBody: options.maxBodyBytes ?? router.config.server.maxBodyBytes,
    forward: router.config.forwardHeaders.map((h) => h.toLowerCase()),
    deadlineHeader: router.config.deadline.header.toLowerCase(),
    live: new LiveRequests(),
  };
  let closing = false;
  const maxConnections = connectionCap(
    router.config.server.maxConnections,
    options.openFilesLimit ?? readOpenFilesLimit(),
  );
  const server = createRouterHttpServer(ctx, maxConnections, () => closing, options.onError ?? (() => {}));
  await listen(server, host, options.port ?? router.config.server.port);
  const port = (server.address() as AddressInfo).port;
  const { live } = ctx;
  return {
    server,
    origin: host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`,
    port,
    maxConnections,
    async close(o = {}) {
      const graceMs = o.graceMs ?? router.config.server.shutdownGrace;
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if (live.size > 0 && graceMs > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          live.whenDrained(),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
      }
      live.abortAll(SHUTDOWN);
      await live.whenDrained();
      server.closeAllConnections();
      await closed;
    },
  };
}
