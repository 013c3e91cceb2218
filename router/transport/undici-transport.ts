import { Agent, request } from 'undici';
import type { HttpCall } from '../adapters/adapter.js';
import { toAbortSignal, type AbortLike } from '../core/cancel.js';
import { takingAbortLike, type HttpResponse, type Transport } from './transport.js';

/** Pool settings for upstream connections. */
export interface UndiciTransportOptions {
  /** Connections per origin. */
  connections?: number;
  keepAliveTimeoutMs?: number;
}

/**
 * Sends through undici with keep-alive pools per origin. undici's own timeouts are off: the
 * router's single deadline (through `signal`) bounds every call, so that a provider dribbling
 * keep-alive bytes cannot re-arm an idle timer forever.
 */
export function createUndiciTransport(options: UndiciTransportOptions = {}): Transport {
  const agent = new Agent({
    connections: options.connections ?? 256,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    pipelining: 1,
  });
  return {
    send: takingAbortLike(async (call: HttpCall, signal: AbortLike): Promise<HttpResponse> => {
      const res = await request(call.url, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        signal: toAbortSignal(signal),
        dispatcher: agent,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      const body = res.body;
      return {
        status: res.statusCode,
        headers: res.headers,
        body,
        async text(maxBytes = 1024 * 1024) {
          let out = '';
          let size = 0;
          const decoder = new TextDecoder();
          for await (const chunk of body) {
            size += chunk.length;
            if (size > maxBytes) {
              body.destroy();
              break;
            }
            out += decoder.decode(chunk, { stream: true });
          }
          return out + decoder.decode();
        },
        // Event-driven rather than async iteration: one promise per body, not one per chunk.
        collect(onChunk, maxBytes) {
          return new Promise<Buffer[]>((resolve, reject) => {
            const chunks: Buffer[] = [];
            let size = 0;
            body.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > maxBytes) {
                body.destroy(new Error(`response body over ${maxBytes} bytes`));
                return;
              }
              chunks.push(chunk);
              onChunk(chunk);
            });
            body.once('end', () => resolve(chunks));
            body.once('error', reject);
          });
        },
        dispose() {
          body.destroy();
        },
      };
    }),
    close: () => agent.close(),
  };
}
