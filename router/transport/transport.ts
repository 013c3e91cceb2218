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
   * Sends `call`; `signal` cancels it. A real AbortSignal for each attempt, unless `send` was
   * made by `takingAbortLike`: then the attempt's `Cancel` itself.
   */
  send(call: HttpCall, signal: AbortSignal): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** A `send` that reads only `aborted`, `reason` and the abort listeners of its signal. */
export type AbortLikeSend = (call: HttpCall, signal: AbortLike) => Promise<HttpResponse>;

const ABORT_LIKE_SENDS = new WeakSet<AbortLikeSend>();

/**
 * Marks `send` as taking any `AbortLike`, so that the router hands it the attempt's `Cancel`
 * rather than an AbortSignal made per attempt (an EventTarget each: a tenth of the CPU of a
 * million simulated attempts). The mark is on the function itself: a transport that wraps or
 * replaces a marked `send` (a spread with its own `send`, say) is handed an AbortSignal again.
 */
export function takingAbortLike<F extends AbortLikeSend>(send: F): F {
  ABORT_LIKE_SENDS.add(send);
  return send;
}

/** The transport's `send` typed for a `Cancel`, when `takingAbortLike` made it; otherwise undefined. */
export function abortLikeSend(transport: Transport): AbortLikeSend | undefined {
  const send = transport.send as AbortLikeSend;
  return ABORT_LIKE_SENDS.has(send) ? send : undefined;
}
