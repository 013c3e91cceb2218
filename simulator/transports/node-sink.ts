import type { ServerResponse } from 'node:http';
import type { ReplySink } from '../engine/play-reply.js';
import type { HeaderMap } from '../vendors/types.js';

/** Plays reply steps onto a node:http response. */
export class NodeSink implements ReplySink {
  constructor(
    private readonly res: ServerResponse,
    private readonly encoding: BufferEncoding = 'utf8',
  ) {}

  head(status: number, headers: HeaderMap, more: boolean): void {
    this.res.writeHead(status, headers);
    // Streams and held requests must show their headers before the first body byte.
    if (more) this.res.flushHeaders();
  }

  write(data: string): void {
    if (!this.res.destroyed) this.res.write(data, this.encoding);
  }

  end(data?: string): void {
    if (!this.res.destroyed) {
      if (data === undefined) this.res.end();
      else this.res.end(data, this.encoding);
    }
  }

  reset(): void {
    const socket = this.res.socket;
    if (socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
    else this.res.destroy();
  }
}
