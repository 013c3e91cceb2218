import { constants, type Http2ServerResponse } from 'node:http2';
import type { ReplySink } from '../engine/play-reply.js';
import type { HeaderMap } from '../vendors/types.js';

// Connection-specific fields HTTP/2 forbids (RFC 9113 §8.2.2); node throws on them.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/** `headers` without the fields an HTTP/2 response may not carry. */
export function h2Headers(headers: HeaderMap): HeaderMap {
  let out: HeaderMap | undefined;
  for (const name of Object.keys(headers)) {
    if (!HOP_BY_HOP.has(name.toLowerCase())) continue;
    out ??= { ...headers };
    delete out[name];
  }
  return out ?? headers;
}

/** Plays reply steps onto an HTTP/2 stream through node's compatibility response. */
export class H2Sink implements ReplySink {
  constructor(
    private readonly res: Http2ServerResponse,
    private readonly encoding: BufferEncoding = 'utf8',
  ) {}

  /** Node's compatibility response sends the HEADERS frame at once: streams and holds need no flush. */
  head(status: number, headers: HeaderMap): void {
    this.res.writeHead(status, h2Headers(headers));
  }

  write(data: string): void {
    if (!this.res.stream.destroyed) this.res.write(data, this.encoding);
  }

  end(data?: string): void {
    if (!this.res.stream.destroyed) {
      if (data === undefined) this.res.end();
      else this.res.end(data, this.encoding);
    }
  }

  /** Resets this stream alone (RST_STREAM INTERNAL_ERROR): the other streams of the connection live on. */
  reset(): void {
    if (!this.res.stream.destroyed) this.res.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  }
}
