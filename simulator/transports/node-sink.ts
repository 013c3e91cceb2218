import type { ServerResponse } from 'node:http';
import type { ReplySink } from '../engine/play-reply.js';

/** Plays reply steps onto a node:http response. */
export function createNodeSink(res: ServerResponse): ReplySink {
  return {
    head(status, headers, more) {
      res.writeHead(status, headers);
      // Streams and held requests must show their headers before the first body byte.
      if (more) res.flushHeaders();
    },
    write(data) {
      if (!res.destroyed) res.write(data);
    },
    end() {
      if (!res.destroyed) res.end();
    },
    reset() {
      const socket = res.socket;
      if (socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else res.destroy();
    },
  };
}
