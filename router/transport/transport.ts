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

/**
 * The port the router sends through: undici over sockets, or anything else in tests. A transport
 * written against AbortSignal is handed one per attempt, as before; the router's own transports
 * set `takesAbortLike` and are handed the attempt's `Cancel` itself (no AbortSignal made per
 * attempt: on a million attempts an EventTarget each is a tenth of the CPU).
 */
export type Transport = SignalTransport | AbortLikeTransport;

/** A transport that is handed a real AbortSignal (any transport that does not say otherwise). */
export interface SignalTransport {
  readonly takesAbortLike?: false;
  /** Sends `call`; `signal` cancels it. */
  send(call: HttpCall, signal: AbortSignal): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** A transport that reads only `aborted`, `reason` and the abort listeners of its signal. */
export interface AbortLikeTransport {
  readonly takesAbortLike: true;
  /** Sends `call`; `signal` (an AbortSignal, a `Cancel` or any `AbortLike`) cancels it. */
  send(call: HttpCall, signal: AbortLike): Promise<HttpResponse>;
  close(): Promise<void>;
}
