import type { RouteResult } from '../engine/route-result.js';
import type { StreamEncoder } from './api-codec.js';

/** An engine error body's fields (the engine's errors are OpenAI-shaped). */
export function engineError(body: string): { message: string; type: string; code: string | null; attempts?: unknown } {
  try {
    const e = (JSON.parse(body) as { error?: Record<string, unknown> }).error ?? {};
    return {
      message: typeof e.message === 'string' ? e.message : 'The router failed the request.',
      type: typeof e.type === 'string' ? e.type : 'api_error',
      code: typeof e.code === 'string' ? e.code : null,
      attempts: e.attempts,
    };
  } catch {
    return { message: 'The router failed the request.', type: 'api_error', code: null };
  }
}

/** A response with a new body, its length and type fixed, every other header (retry-after) kept. */
export function withBody(result: Extract<RouteResult, { kind: 'response' }>, body: string): RouteResult {
  return {
    ...result,
    body,
    headers: {
      ...result.headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    },
  };
}

/** A committed chat stream relayed through `encoder`; ending it early ends the engine's stream too. */
export function reencodeStream(result: Extract<RouteResult, { kind: 'stream' }>, encoder: StreamEncoder): RouteResult {
  const inner = result.rest;
  async function* rest(): AsyncGenerator<string, void, undefined> {
    try {
      for await (const frames of inner) {
        const out = encoder.push(frames);
        if (out) yield out;
        if (encoder.ended) return;
      }
    } finally {
      await inner.return(undefined);
    }
  }
  return { ...result, first: [encoder.push(result.first.join(''))], rest: rest() };
}
