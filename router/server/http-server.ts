import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RouterError } from '../core/errors.js';
import type { Router } from '../router.js';

/** A listening router. */
export interface RouterServer {
  readonly server: Server;
  readonly origin: string;
  readonly port: number;
  close(): Promise<void>;
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

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

function openAIError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null,
  headers: Record<string, string> = {},
): void {
  json(res, status, { error: { message, type, param: null, code } }, headers);
}

function readBody(req: IncomingMessage, max: number): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) tooLarge = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve({ text: tooLarge ? '' : Buffer.concat(chunks).toString('utf8'), tooLarge }));
    req.on('error', reject);
  });
}

/** The deadline a client asked for: our header in ms, or the OpenAI SDK's `x-stainless-timeout` in seconds. */
function clientDeadlineMs(req: IncomingMessage, header: string): number | undefined {
  const ours = Number(req.headers[header.toLowerCase()]);
  const sdk = Number(req.headers['x-stainless-timeout']) * 1000;
  const values = [ours, sdk].filter((v) => Number.isFinite(v) && v > 0);
  return values.length > 0 ? Math.min(...values) : undefined;
}

/**
 * Serves a router as an OpenAI-compatible API: `POST /v1/chat/completions` (streaming or not),
 * `GET /v1/models`, `GET /healthz`, Prometheus `GET /metrics` and a JSON `GET /state` of every
 * target's circuits, capacity and score. A client that disconnects cancels its upstream attempt.
 */
export async function startRouterServer(router: Router, options: RouterServerOptions = {}): Promise<RouterServer> {
  const host = options.host ?? router.config.server.host;
  const tokens = new Set(options.authTokens ?? []);
  const maxBody = options.maxBodyBytes ?? router.config.server.maxBodyBytes;
  const onError = options.onError ?? (() => {});
  const forward = router.config.forwardHeaders.map((h) => h.toLowerCase());

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    if (tokens.size > 0) {
      const token = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
      if (!token || !tokens.has(token))
        return openAIError(
          res,
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
    if (path !== '/v1/chat/completions')
      return openAIError(res, 404, `Invalid URL (${req.method} ${path})`, 'invalid_request_error', null);
    if (req.method !== 'POST')
      return openAIError(
        res,
        405,
        `Method ${req.method} is not allowed on ${path}; use POST.`,
        'invalid_request_error',
        null,
      );

    const { text, tooLarge } = await readBody(req, maxBody);
    if (tooLarge)
      return openAIError(
        res,
        413,
        `Request body is larger than ${maxBody} bytes.`,
        'invalid_request_error',
        'request_too_large',
      );
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return openAIError(
        res,
        400,
        'We could not parse the JSON body of your request. The API expects a JSON payload.',
        'invalid_request_error',
        null,
      );
    }
    const aborter = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    const fwd: Record<string, string> = {};
    for (const h of forward) {
      const v = req.headers[h];
      if (typeof v === 'string') fwd[h] = v;
    }
    const result = await router.route(body, {
      signal: aborter.signal,
      deadlineMs: clientDeadlineMs(req, router.config.deadline.header),
      forward: fwd,
    });
    if (res.destroyed) {
      if (result.kind === 'stream') await result.rest.return(undefined);
      return;
    }
    if (result.kind === 'response') {
      res.writeHead(result.status, result.headers);
      return void res.end(result.body);
    }
    res.writeHead(200, result.headers);
    res.write(result.first.join(''));
    try {
      for await (const frame of result.rest) {
        if (aborter.signal.aborted) break;
        if (!res.write(frame))
          await new Promise<void>((resolve) => res.once('drain', () => resolve()).once('close', () => resolve()));
      }
    } finally {
      res.end();
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
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
  server.keepAliveTimeout = 30_000;
  server.requestTimeout = 0;
  server.on('clientError', (_e, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
