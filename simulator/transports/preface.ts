import type { Socket } from 'node:net';

/** The client connection preface that opens every HTTP/2 connection (RFC 9113 §3.4). */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** Which protocol a connection speaks, judged from its first bytes. */
export type WireProtocol = 'h1' | 'h2';

/**
 * Judges a connection from the bytes it sent first: `h2` once the whole HTTP/2 preface is there,
 * `h1` as soon as a byte differs from it (no HTTP/1 method starts with "PRI *"), `more` while a
 * strict prefix of the preface is all there is.
 */
export function classifyPreface(head: Buffer): WireProtocol | 'more' {
  // The common case costs one byte compare: HTTP/1 requests seldom start with "P".
  if (head.length > 0 && head[0] !== 0x50) return 'h1';
  const n = Math.min(head.length, PREFACE.length);
  if (PREFACE.compare(head, 0, n, 0, n) !== 0) return 'h1';
  return head.length >= PREFACE.length ? 'h2' : 'more';
}

/**
 * Reads a fresh connection's first bytes, puts them back and hands the socket to `route` with the
 * protocol they show. A connection that shows nothing within `timeoutMs`, or fails first, is
 * destroyed without reaching either server.
 */
export function sniffPreface(socket: Socket, timeoutMs: number, route: (protocol: WireProtocol) => void): void {
  let head: Buffer | undefined;
  const drop = () => socket.destroy();
  const onData = (chunk: Buffer) => {
    head = head === undefined ? chunk : Buffer.concat([head, chunk]);
    const protocol = classifyPreface(head);
    if (protocol === 'more') return;
    socket.off('data', onData);
    socket.off('error', drop);
    socket.setTimeout(0);
    socket.off('timeout', drop);
    socket.pause();
    socket.unshift(head);
    route(protocol);
  };
  socket.on('data', onData);
  socket.on('error', drop);
  socket.setTimeout(timeoutMs, drop);
}
