import { maxHeaderSize } from 'node:http';
import {
  createServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';

/**
 * Streams one HTTP/2 connection may have open at once. RFC 9113 §6.5.2 asks for no fewer than
 * 100; 128 is what large fronts commonly advertise. Past it the client gets REFUSED_STREAM.
 */
export const H2_MAX_CONCURRENT_STREAMS = 128;

/** How long an idle session told GOAWAY has to go before it is destroyed. */
const GOAWAY_GRACE_MS = 5_000;

// A session with no open stream for `idleMs` is closed (GOAWAY), as HTTP/1.1's keep-alive timeout
// closes an idle connection. Bytes that open no stream (PINGs, a request's headers dribbled in
// one byte at a time) do not count: that is how slowloris is bounded on HTTP/2. A stream held open
// (a hung reply, a keep-alive hold) keeps its session, as it keeps its HTTP/1.1 connection.
function closeWhenIdle(session: ServerHttp2Session, idleMs: number): void {
  let open = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => {
      session.close();
      setTimeout(() => session.destroy(), GOAWAY_GRACE_MS).unref();
    }, idleMs);
    timer.unref();
  };
  arm();
  session.on('stream', (stream) => {
    if (open++ === 0) clearTimeout(timer);
    stream.once('close', () => {
      if (--open === 0 && !session.closed && !session.destroyed) arm();
    });
  });
  session.once('close', () => clearTimeout(timer));
}

/**
 * The HTTP/2 side of the simulator: a node:http2 server that never listens itself (connections
 * are handed to it once their protocol is known) and passes each request, through node's
 * compatibility API, to the same handler as HTTP/1.1. Bounds mirror HTTP/1.1's: header size
 * (`http.maxHeaderSize`), idle time, and at most `H2_MAX_CONCURRENT_STREAMS` streams. A
 * malformed frame destroys its session only; the server lives on.
 */
export function createH2Server(
  onRequest: (req: Http2ServerRequest, res: Http2ServerResponse) => void,
  idleMs: number,
): Http2Server {
  const server = createServer(
    { settings: { maxConcurrentStreams: H2_MAX_CONCURRENT_STREAMS, maxHeaderListSize: maxHeaderSize } },
    (req, res) => {
      // HTTP/2 names the host `:authority`; the control API's loopback guard reads `host`.
      req.headers.host ??= req.headers[':authority'];
      onRequest(req, res);
    },
  );
  server.on('session', (session) => closeWhenIdle(session, idleMs));
  // A protocol error is the client's problem: its session goes, reported to no one.
  server.on('sessionError', (_error, session) => session.destroy());
  return server;
}
