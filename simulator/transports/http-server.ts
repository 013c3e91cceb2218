import { createServer, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { SimError } from '../core/errors.js';
import { playReply, SHUTDOWN } from '../engine/play-reply.js';
import type { Reply } from '../engine/reply.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Simulator } from '../simulator.js';
import { handleControl } from './control-api.js';
import type { FaultChannel } from '../shared-faults/fault-channel.js';
import { CONTROL_PREFIX } from '../core/control-prefix.js';
import { createH2Server } from './h2-server.js';
import { H2Sink } from './h2-sink.js';
import { NodeSink } from './node-sink.js';
import { sniffPreface } from './preface.js';
import { collectBody } from './read-body.js';
import { closedEarly, isGone, type ServerReply, type ServerRequest } from './server-exchange.js';

const NEVER_ABORTED = new AbortController().signal;

/** A listening simulator. */
export interface SimulatorServer {
  /** The listening socket server (TCP, or TLS with `tls`); HTTP/1.1 and HTTP/2 are served behind it. */
  readonly server: Server;
  /** `http://127.0.0.1:<port>` (or `http://[::1]:<port>`; `https://` with `tls`). */
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
  /** Serve TLS with this certificate and key, offering `h2` and `http/1.1` by ALPN. */
  tls?: { cert: string; key: string };
  /** The ledger the control API answers from (default: the simulator's; a group's worker passes the group's). */
  controlLedger?: Ledger;
  /** Where the control API sends fault changes (a group's worker: to every worker, through Redis). */
  faultChannel?: FaultChannel;
}

// HTTP/1.1 keep-alive: an idle connection (or HTTP/2 session) is closed after this long.
const KEEP_ALIVE_MS = 30_000;
// A request's headers must be complete this long after it starts (slowloris); a new connection,
// or a TLS handshake, must show its protocol within it too.
const HEADERS_TIMEOUT_MS = 35_000;

/**
 * Serves a simulator over HTTP on loopback: every provider under `/<id>`, the control API
 * under `/_throttlelab`, HTTP/1.1 and HTTP/2 on one port (prior knowledge in cleartext, ALPN
 * with `tls`). No request can crash it: failures become a 500 and `onError`.
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

  const fail = (res: ServerReply, error: unknown) => {
    onError(error);
    if (!res.headersSent && !isGone(res)) {
      const body = JSON.stringify({
        error: {
          message: 'The simulator failed to handle this request; this is a throttlelab bug.',
          type: 'simulator_error',
        },
      });
      (res as ServerResponse)
        .writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
        .end(body);
    } else {
      res.destroy();
    }
  };

  // Plain callbacks rather than async functions: the common reply plays synchronously and
  // allocates no promise at all.
  const play = (res: ServerReply, reply: Reply) => {
    res.sendDate = false;
    // Only replies that wait can outlive their client; the rest finish in this tick.
    let aborter: AbortController | undefined;
    if (reply.steps.some((s) => s.op === 'wait' || s.op === 'hang')) {
      const a = (aborter = new AbortController());
      if (isGone(res)) a.abort();
      res.on('close', () => {
        if (closedEarly(res)) a.abort();
      });
    }
    const played = playReply(
      reply,
      'stream' in res
        ? new H2Sink(res, reply.binary ? 'latin1' : 'utf8')
        : new NodeSink(res, reply.binary ? 'latin1' : 'utf8'),
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

  const dispatch = (req: ServerRequest, res: ServerReply, arrivalAt: number, body: string, tooLarge: boolean) => {
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

  const handle = (req: ServerRequest, res: ServerReply) => {
    const arrivalAt = sim.clock.now();
    if (closing) {
      // HTTP/2 forbids `connection`; its session ends with the server's GOAWAY instead.
      const headers = 'stream' in res ? { 'content-length': '0' } : { connection: 'close', 'content-length': '0' };
      (res as ServerResponse).writeHead(503, headers).end();
      return;
    }
    if (req.url?.startsWith(`${CONTROL_PREFIX}/`)) {
      handleControl(sim, req, res, origin, {
        token: options.controlToken,
        ledger: options.controlLedger,
        faults: options.faultChannel,
      }).catch((error) => fail(res, error));
      return;
    }
    collectBody(
      req,
      maxBody,
      (body, tooLarge) => dispatch(req, res, arrivalAt, body, tooLarge),
      (error) => fail(res, error),
    );
  };
  const h1 = createServer(handle);
  h1.keepAliveTimeout = KEEP_ALIVE_MS;
  h1.headersTimeout = HEADERS_TIMEOUT_MS;
  h1.requestTimeout = 0;
  // Node checks headersTimeout from a timer it starts when its server emits 'listening'; this
  // one never listens itself (connections are handed to it), so it is told.
  h1.emit('listening');
  // Malformed HTTP is the client's problem: answer 400 as node would, without reporting it.
  h1.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  // One port, both protocols: TLS picks by ALPN; otherwise (and when ALPN chose nothing) the first
  // bytes tell, the HTTP/2 preface or anything else. HTTP/1.1 connections pay one extra read.
  const h2 = createH2Server(handle, KEEP_ALIVE_MS);
  const route = (socket: Socket) =>
    sniffPreface(socket, HEADERS_TIMEOUT_MS, (protocol) => {
      if (protocol === 'h2') return void h2.emit('connection', socket);
      h1.emit('connection', socket);
      // The sniff paused the socket with its first bytes put back; node's HTTP/1 parser reads on.
      socket.resume();
    });
  const server = options.tls
    ? createTlsServer(
        {
          ...options.tls,
          ALPNProtocols: ['h2', 'http/1.1'],
          handshakeTimeout: HEADERS_TIMEOUT_MS,
          allowHalfOpen: true,
          noDelay: true,
        },
        (socket: TLSSocket) => {
          if (socket.alpnProtocol === 'h2') h2.emit('connection', socket);
          else if (socket.alpnProtocol === 'http/1.1') h1.emit('connection', socket);
          else route(socket);
        },
      )
    : createNetServer({ allowHalfOpen: true, noDelay: true }, route);
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // A TLS handshake that fails is the client's problem, as malformed HTTP is.
  server.on('tlsClientError', (_error, socket: Socket) => socket.destroy());

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
  const scheme = options.tls ? 'https' : 'http';
  origin = host.includes(':') ? `${scheme}://[${host}]:${address.port}` : `${scheme}://${host}:${address.port}`;
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
      for (const socket of sockets) socket.destroy();
      // Stops node's headersTimeout timer; neither server listens, so neither has more to close.
      h1.close();
      h2.close();
      await closed;
    },
  };
}
