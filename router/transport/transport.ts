import type { HttpCall } from '../adapters/adapter.js';
import type { AbortLike } from '../core/cancel.js';

/** A provider's answer, headers first, body as it arrives. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /**
   * Body chunks as they arrive; read once. Bytes from a socket; text as is from a transport that
   * holds the body as text already (in process), so that nothing is encoded only to be decoded.
   */
  body: AsyncIterable<Uint8Array | string>;
  /** Reads the rest of the body as text, up to `maxBytes` (the rest is dropped). */
  text(maxBytes?: number): Promise<string>;
  /** Reads the whole body, calling `onChunk` as each piece arrives; fails past `maxBytes`. */
  collect(onChunk: (chunk: Buffer) => void, maxBytes: number): Promise<Buffer[]>;
  /** Abandons the body and frees the connection. */
  dispose(): void;
}

/** The port the router sends through: undici over sockets, or anything else in tests. */
export interface Transport {
  /**
   * Sends `call`; `signal` cancels it. The router hands over its attempt's `Cancel`, not an
   * AbortSignal: an API that takes only an AbortSignal gets `toAbortSignal(signal)`.
   */
  send(call: HttpCall, signal: AbortLike): Promise<HttpResponse>;
  close(): Promise<void>;
}
