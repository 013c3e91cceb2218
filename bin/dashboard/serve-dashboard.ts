import { readFile } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { controlUrl } from './control-url.js';
import { dashboardPage } from './dashboard-page.js';

/** A running dashboard. */
export interface Dashboard {
  origin: string;
  close(): Promise<void>;
}

/** Options of the dashboard server. */
export interface DashboardOptions {
  /** The simulator's origin, once it is known (a run starts its simulator later); undefined: not yet. */
  target: () => string | undefined;
  /** The control token, sent on the page's behalf. */
  controlToken?: string;
  port?: number;
  host?: '127.0.0.1' | '::1';
}

const LOOPBACK_HOST = /^(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?$/i;
const ECHARTS = createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js');

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}

/** Passes `/control/…` on to the simulator's control API, which applies its own guards (Origin, JSON bodies). */
function proxy(req: IncomingMessage, res: ServerResponse, target: string, token: string | undefined): void {
  const url = controlUrl(req.url!, target);
  if (!url) return plain(res, 403, 'Refused: the path leaves /control/ once its dot segments are resolved.');
  const headers: Record<string, string> = { host: url.host };
  for (const name of ['content-type', 'content-length', 'origin', 'accept'])
    if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
  if (token) headers.authorization = `Bearer ${token}`;
  const upstream = request(url, { method: req.method, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, {
      'content-type': answer.headers['content-type'] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) plain(res, 502, 'the simulator is not reachable (stopped?)');
    else res.destroy();
  });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

/**
 * Serves the live dashboard on loopback: the page, echarts (from the installed package, no CDN),
 * and `/control/…` passed on to the simulator's control API (the event stream, faults).
 */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const echarts = await readFile(ECHARTS);
  const page = dashboardPage();
  const server = createServer((req, res) => {
    // A page of another site reaching the dashboard under its own name (DNS rebinding) is refused.
    if (!LOOPBACK_HOST.test(req.headers.host ?? '')) return plain(res, 403, 'loopback Host only');
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'GET' && path === '/')
      return void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(page);
    if (req.method === 'GET' && path === '/echarts.min.js')
      return void res
        .writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'max-age=3600' })
        .end(echarts);
    if (path.startsWith('/control/')) {
      const target = options.target();
      if (!target) return plain(res, 503, 'the simulator has not started yet');
      return proxy(req, res, target, options.controlToken);
    }
    plain(res, 404, 'not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    origin: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
