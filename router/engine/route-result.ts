import type { Failure } from '../core/decide-next.js';
import { remainingMs, type Deadline } from '../core/deadline.js';
import type { AttemptRecord } from '../core/types.js';
import type { AttemptResult } from './attempt.js';
import { errorResponse } from './responses.js';
import type { TargetRuntime } from './target.js';

/** The router's answer: a complete response, or a stream already committed to one provider. */
export type RouteResult =
  | { kind: 'response'; status: number; headers: Record<string, string>; body: string; attempts: AttemptRecord[] }
  | {
      kind: 'stream';
      status: 200;
      headers: Record<string, string>;
      first: string[];
      rest: AsyncGenerator<string, void, undefined>;
      attempts: AttemptRecord[];
    };

/** An error answer as a route result, with the attempts behind it. */
export function failWith(
  status: number,
  code: string | null,
  type: string,
  message: string,
  attempts: AttemptRecord[],
  extraHeaders: Record<string, string> = {},
  param: string | null = null,
): RouteResult {
  const e = errorResponse(status, code, type, message, attempts, extraHeaders, param);
  return { kind: 'response', status: e.status, headers: e.headers, body: e.body, attempts };
}

/** 404: no target serves the model asked for (`names`: what can be asked for). */
export function modelNotFound(model: string, api: 'chat' | 'embeddings', names: readonly string[]): RouteResult {
  const what = api === 'chat' ? '' : ' for embeddings (by a provider that serves them)';
  const message = `The model \`${model}\` is not routed here${what}. Ask for one of: ${names.join(', ')}.`;
  return failWith(404, 'model_not_found', 'invalid_request_error', message, []);
}

/** 400: the request could not be put in the provider's terms (no attempt was sent). */
export function untranslatable(provider: string, reason: string, attempts: AttemptRecord[]): RouteResult {
  const message = `The request could not be translated for ${provider}: ${reason}.`;
  return failWith(400, 'invalid_request', 'invalid_request_error', message, attempts);
}

/** The provider's own 4xx for a bad request, passed on: another provider would reject it too. */
export function upstreamRejected(status: number, reason: string, attempts: AttemptRecord[]): RouteResult {
  const message = `The provider rejected the request: ${reason}`;
  return failWith(status, 'upstream_rejected_request', 'invalid_request_error', message, attempts);
}

/** Seconds until `earliest`, at least 1, for `Retry-After`; undefined when nothing will have capacity. */
export function retryAfterSeconds(earliest: number, now: number): number | undefined {
  return Number.isFinite(earliest) ? Math.max(1, Math.ceil((earliest - now) / 1000)) : undefined;
}

/** A provider's answer as the client gets it: the body or the stream, with the route's own headers. */
export function answered(
  target: TargetRuntime,
  result: Extract<AttemptResult, { kind: 'json' | 'stream' }>,
  attempts: AttemptRecord[],
): RouteResult {
  // Each answer's headers as one literal (same names, same order): no object spread per request.
  if (result.kind === 'json') {
    return {
      kind: 'response',
      status: 200,
      headers: {
        'x-throttlelab-provider': target.provider,
        'x-throttlelab-model': target.model,
        'x-throttlelab-attempts': String(attempts.length),
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(result.body)),
      },
      body: result.body,
      attempts,
    };
  }
  return {
    kind: 'stream',
    status: 200,
    headers: {
      'x-throttlelab-provider': target.provider,
      'x-throttlelab-model': target.model,
      'x-throttlelab-attempts': String(attempts.length),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    },
    first: result.first,
    rest: result.rest,
    attempts,
  };
}

/** 504: the request's one deadline passed. */
export function deadlineExceeded(deadline: Deadline, attempts: AttemptRecord[]): RouteResult {
  const budgetMs = Math.round(deadline.at - deadline.startedAt);
  const message = `The request deadline of ${budgetMs} ms passed after ${attempts.length} attempt(s).`;
  return failWith(504, 'deadline_exceeded', 'timeout', message, attempts);
}

/** 503 + Retry-After: nothing can serve before the deadline (`earliest`: when something could). */
export function noCapacity(deadline: Deadline, attempts: AttemptRecord[], earliest: number, now: number): RouteResult {
  const retryAfter = retryAfterSeconds(earliest, now);
  const left = Math.round(remainingMs(deadline, now));
  const when = retryAfter !== undefined ? ` The earliest capacity is in ${retryAfter} s.` : '';
  const message = `No provider has capacity before the deadline (${left} ms left).${when}`;
  const headers: Record<string, string> = retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {};
  return failWith(503, 'no_capacity', 'service_unavailable', message, attempts, headers);
}

/** 503 + Retry-After: the attempts or the retry budget ran out. */
export function exhausted(
  attempts: AttemptRecord[],
  earliest: number,
  now: number,
  why: 'max_attempts' | 'retry_budget',
): RouteResult {
  const retryAfter = retryAfterSeconds(earliest, now) ?? 1;
  const budget = why === 'retry_budget';
  const message = budget
    ? 'The retry budget is spent: failovers are limited to protect the providers.'
    : `All ${attempts.length} attempts failed.`;
  const code = budget ? 'retry_budget_exhausted' : 'upstream_unavailable';
  return failWith(503, code, 'service_unavailable', message, attempts, { 'retry-after': String(retryAfter) });
}

/**
 * The answer for a request that ends without a provider's answer, as `decideNext` decided;
 * `earliest` (when a candidate could be tried) is asked only by the answers with a Retry-After.
 */
export function failed(
  failure: Failure,
  deadline: Deadline,
  attempts: AttemptRecord[],
  earliest: () => number,
  now: number,
): RouteResult {
  switch (failure) {
    case 'client_closed':
      return failWith(499, 'client_closed', 'client_closed', 'The client closed the request.', attempts);
    case 'deadline_exceeded':
      return deadlineExceeded(deadline, attempts);
    case 'no_capacity':
      return noCapacity(deadline, attempts, earliest(), now);
    case 'max_attempts':
    case 'retry_budget':
      return exhausted(attempts, earliest(), now, failure);
  }
}
