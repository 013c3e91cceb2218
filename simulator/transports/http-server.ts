import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimError } from '../core/errors.js';
import { playReply } from '../engine/play-reply.js';
import { staticReply } from '../engine/reply.js';
import type { Simulator } from '../simulator.js';
import { CONTROL_PREFIX, handleControl } from './control-api.js';
import { createNodeSink } from './node-sink.js';
import { readBody } from './read-body.js';

/** A listening simulator. */
export interface SimulatorServer {
  readonly server: Server;
  /** `http://127.0.0.1:<port>` (or `http://[::1]:<port>`). */
  readonly origin: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Options for `startSimulatorServer`. */
export interface SimulatorServerOptions {
  host?: '127.0.0.1' | '::1';
  port?: number;
  /** Called with errors the server survived (never with request data). */
  onError?: (error: unknown) => void;
}

/**
 * Serves a simulator over HTTP on loopback: every provider under `/<id>`, the control API
 * under `/_throttlelab`. No request can crash it: failures become a 500 and `onError`.
 */
export async function startSimulatorServer(sim: Simulator, options: SimulatorServerOptions = {}): Promise<SimulatorServer> {
  const host = options.host ?? sim.scenario.simulator.host;
  const maxBody = sim.scenario.simulator.maxBodyBytes;
  const onError = options.onError ?? (() => {});
  let origin = '';

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const arrivalAt = sim.clock.now();
    const url = req.url ?? '/';
    if (url.startsWith(`${CONTROL_PREFIX}/`)) return handleControl(sim, req, res, origin);
    const { body, tooLarge } = await readBody(req, maxBody);
    const reply = sim.handle({ method: req.method ?? 'GET', url, headers: req.headers as Record<string, string | undefined>, body }, { arrivalAt, bodyTooLarge: tooLarge });
    const aborter = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    res.sendDate = false;
    await playReply(reply, createNodeSink(res), sim.clock, aborter.signal);
  };

  const server = createServer((req, res) => {
    serve(req, res).catch((error) => {
      onError(error);
      if (!res.headersSent && !res.destroyed) {
        const r = staticReply(500, JSON.stringify({ error: { message: 'The simulator failed to handle this request; this is a throttlelab bug.', type: 'simulator_error' } }));
        res.writeHead(r.status, r.headers).end((r.steps[1] as { data: string }).data);
      } else {
        res.destroy();
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 35_000;
  server.requestTimeout = 0;
  server.on('clientError', (error, socket) => {
    onError(error);
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => reject(new SimError('SIM_SERVER_START_FAILED', `Failed to start the simulator on ${host}:${options.port ?? sim.scenario.simulator.port}: ${(error as Error).message}. Pick another port or use port 0.`, { cause: error }));
    server.once('error', fail);
    server.listen(options.port ?? sim.scenario.simulator.port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  origin = host.includes(':') ? `http://[${host}]:${address.port}` : `http://${host}:${address.port}`;
  return {
    server,
    origin,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
