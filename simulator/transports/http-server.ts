import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimError } from '../core/errors.js';
import { playReply, SHUTDOWN } from '../engine/play-reply.js';
import type { Reply } from '../engine/reply.js';
import type { Simulator } from '../simulator.js';
import { handleControl } from './control-api.js';
import { CONTROL_PREFIX } from './control-prefix.js';
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
  /** A token the control API requires (`Authorization: Bearer <token>`); none means loopback callers only. */
  controlToken?: string;
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
  // Replies still playing (waiting, streaming, holding): shutting down ends each of them and
  // waits for its ledger row, so that none is lost.
  const playing = new Map<AbortController, Promise<void>>();
  const deciding = new Set<Promise<void>>();
  let closing = false;

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
  const play = (res: ServerResponse, reply: Reply) => {
    res.sendDate = false;
    // Only replies that wait can outlive their client; the rest finish in this tick.
    let aborter: AbortController | undefined;
    if (reply.steps.some((s) => s.op === 'wait' || s.op === 'hang')) {
      const a = (aborter = new AbortController());
      if (res.destroyed) a.abort();
      res.on('close', () => {
        if (!res.writableFinished) a.abort();
      });
    }
    const played = playReply(
      reply,
      new NodeSink(res, reply.binary ? 'latin1' : 'utf8'),
      sim.clock,
      aborter?.signal ?? NEVER_ABORTED,
    );
    if (played && aborter) {
      const a = aborter;
      playing.set(
        a,
        played.catch((error) => fail(res, error)).finally(() => playing.delete(a)),
      );
    }
  };

  const dispatch = (req: IncomingMessage, res: ServerResponse, arrivalAt: number, body: string, tooLarge: boolean) => {
    try {
      const reply = sim.serve(
        {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headers as Record<string, string | undefined>,
          body,
        },
        { arrivalAt, bodyTooLarge: tooLarge },
      );
      if (!(reply instanceof Promise)) return play(res, reply);
      // A quota decided elsewhere (shared through Redis): played once decided; closing waits for it.
      const decided = reply.then(
        (r) => play(res, r),
        (error) => fail(res, error),
      );
      deciding.add(decided);
      void decided.finally(() => deciding.delete(decided));
    } catch (error) {
      fail(res, error);
    }
  };

  const server = createServer((req, res) => {
    const arrivalAt = sim.clock.now();
    if (closing) {
      res.writeHead(503, { connection: 'close', 'content-length': '0' }).end();
      return;
    }
    if (req.url?.startsWith(`${CONTROL_PREFIX}/`)) {
      handleControl(sim, req, res, origin, { token: options.controlToken }).catch((error) => fail(res, error));
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
    async close() {
      // No new connections or requests; replies in flight end now, recorded as `shutdown`, and
      // their ledger rows are complete before the sockets close.
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(deciding);
      while (playing.size > 0) {
        for (const a of playing.keys()) a.abort(SHUTDOWN);
        await Promise.all(playing.values());
      }
      server.closeAllConnections();
      await closed;
    },
  };
}
