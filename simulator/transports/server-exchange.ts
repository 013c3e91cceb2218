import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';

/** A request as either server hands it over: HTTP/1.1, or HTTP/2 through node's compatibility API. */
export type ServerRequest = IncomingMessage | Http2ServerRequest;

/** A response of either server. */
export type ServerReply = ServerResponse | Http2ServerResponse;

/** Tells whether the client can no longer receive this response (node's h2 response has no `destroyed`). */
export function isGone(res: ServerReply): boolean {
  return 'stream' in res ? res.stream.destroyed : res.destroyed;
}

/** Writes a body chunk to either response; false asks the caller to wait for `drain`. */
export function writeChunk(res: ServerReply, data: string): boolean {
  return 'stream' in res ? res.write(data) : res.write(data);
}

/**
 * Tells, once a response has closed, whether it closed before the reply had ended: the client
 * left or reset. Node's h2 response reports `writableFinished` even for a reset stream, so its
 * own end is what counts there.
 */
export function closedEarly(res: ServerReply): boolean {
  return 'stream' in res ? !res.writableEnded : !res.writableFinished;
}
