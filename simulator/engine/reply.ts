import type { HeaderMap } from '../vendors/types.js';

/** One instruction of a reply, interpreted identically by every transport. */
export type Step =
  | { op: 'wait'; ms: number }
  | { op: 'head' }
  | { op: 'write'; data: string; tokens?: number }
  | { op: 'end' }
  | { op: 'reset' }
  | { op: 'hang' };

/** How a transport saw a reply end. */
export interface ReplyOutcome {
  /** The client went away before the reply finished. */
  aborted: boolean;
  /** The transport was shut down while the reply was in flight (not the client's doing). */
  stopped?: boolean;
  /** Content tokens written before the end. */
  tokensDelivered: number;
}

/**
 * A response as a script: status, headers and steps. The HTTP server and the msw handlers both
 * play the same script, which is why they answer byte for byte alike.
 */
export interface Reply {
  status: number;
  headers: HeaderMap;
  steps: Step[];
  /** The writes are latin1 strings of bytes (a binary stream), not text to encode as UTF-8. */
  binary?: boolean;
  /** Called once when the status line and headers are sent. */
  onHead(at: number): void;
  /** Called exactly once when the reply is over, however it ended. */
  onFinish(at: number, outcome: ReplyOutcome): void;
}

const noop = () => {};

/** A finished reply with a JSON (or other) body and no bookkeeping, for paths outside providers. */
export function staticReply(status: number, body: string, contentType = 'application/json'): Reply {
  return {
    status,
    headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) },
    steps: [{ op: 'head' }, { op: 'write', data: body }, { op: 'end' }],
    onHead: noop,
    onFinish: noop,
  };
}
