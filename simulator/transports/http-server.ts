import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimError } from '../core/errors.js';
import { playReply } from '../engine/play-reply.js';
import type { Simulator } from '../simulator.js';
import { CONTROL_PREFIX, handleControl } from './control-api.js';
import { NodeSink } from './node-sink.js';
import { collectBody } from './read-body.js';

const NEVER_ABORTED = new AbortController().signal;

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
export async function startSimulatorServer(
  sim: Simulator,
  options: SimulatorServerOptions = {},
): Promise<SimulatorServer> {
  const host = options.host ?? sim.scenario.simulator.host;
  const maxBody = sim.scenario.simulator.maxBodyBytes;
  const onError = options.onError ?? (() => {});
  let origin = '';

  const fail = (res: ServerResponse, error: unknown) => {
    onError(error);
    if (!res.headersSent && !res.destroyed) {
      const body = JSON.stringify({
        error: {
          message: 'The simulator failed to handle this request; this is a throttlelab bug.',
          type: 'simulator_error',
        },
      });
      res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    } else {
      res.destroy();
    }
  };

  // Plain callbacks rather than async functions: the common reply plays synchronously and
  // allocates no promise at all.
  const dispatch = (req: IncomingMessage, res: ServerResponse, arrivalAt: number, body: string, tooLarge: boolean) => {
    try {
      const reply = sim.handle(
        {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headers as Record<string, string | undefined>,
          body,
        },
        { arrivalAt, bodyTooLarge: tooLarge },
      );
      res.sendDate = false;
      // Only replies that wait can outlive their client; the rest finish in this tick.
      let signal = NEVER_ABORTED;
      if (reply.steps.some((s) => s.op === 'wait' || s.op === 'hang')) {
        const aborter = new AbortController();
        res.on('close', () => {
          if (!res.writableFinished) aborter.abort();
        });
        signal = aborter.signal;
      }
      playReply(reply, new NodeSink(res, reply.binary ? 'latin1' : 'utf8'), sim.clock, signal)?.catch((error) =>
        fail(res, error),
      );
    } catch (error) {
      fail(res, error);
    }
  };

  const server = createServer((req, res) => {
    const arrivalAt = sim.clock.now();
    if (req.url?.startsWith(`${CONTROL_PREFIX}/`)) {
      handleControl(sim, req, res, origin).catch((error) => fail(res, error));
      return;
    }
    collectBody(
      req,
      maxBody,
      (body, tooLarge) => dispatch(req, res, arrivalAt, body, tooLarge),
      (error) => fail(res, error),
    );
  });
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 35_000;
  server.requestTimeout = 0;
  // Malformed HTTP is the client's problem: answer 400 as node would, without reporting it.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) =>
      reject(
        new SimError(
          'SIM_SERVER_START_FAILED',
          `Failed to start the simulator on ${host}:${options.port ?? sim.scenario.simulator.port}: ${(error as Error).message}. Pick another port or use port 0.`,
          { cause: error },
        ),
      );
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
