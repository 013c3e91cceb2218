import type { AttemptRecord } from '../core/types.js';

/** A response the router gives instead of an answer. */
export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * An OpenAI-shaped error, with the attempts behind it so that callers see the chain and not one
 * provider's error. Provider keys never appear: attempts name keys by id.
 */
export function errorResponse(
  status: number,
  code: string | null,
  type: string,
  message: string,
  attempts: readonly AttemptRecord[],
  extraHeaders: Record<string, string> = {},
  param: string | null = null,
): ErrorResponse {
  const body = JSON.stringify({ error: { message, type, param, code, attempts } });
  return {
    status,
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...extraHeaders },
    body,
  };
}
