import type { Prefix } from '../core/cache-affinity.js';
import { NEVER_CANCELLED, type AbortLike } from '../core/cancel.js';
import { createDeadline, type Deadline } from '../core/deadline.js';
import type { AttemptRecord } from '../core/types.js';
import { estimateInputTokens } from './estimate.js';
import type { ModelRoutes } from './model-routes.js';
import { failWith, modelNotFound, type RouteResult } from './route-result.js';
import type { Selectable } from './selector.js';
import type { TargetRuntime } from './target.js';
import { validateEmbeddingsRequest } from './validate-embeddings.js';
import { validateChatRequest } from './validate-request.js';

/** Per-request options. */
export interface RouteOptions {
  /** Aborts when the client goes away; the upstream attempt is cancelled with it (an AbortSignal will do). */
  signal?: AbortLike;
  /** Tightens the configured deadline (never loosens it). */
  deadlineMs?: number;
  /** Headers to pass on to providers (correlation ids). */
  forward?: Record<string, string>;
  /** What the body is: a chat request (the default) or an embeddings request. */
  api?: 'chat' | 'embeddings';
  /** The body's text, when `body` was parsed from it unchanged (a same-API adapter reuses it). */
  raw?: string;
}

/** One request as the router's loop carries it from attempt to attempt. */
export interface RequestState extends Selectable {
  api: 'chat' | 'embeddings';
  stream: boolean;
  deadline: Deadline;
  signal: AbortLike;
  forward: Record<string, string>;
  raw?: string;
  attempts: AttemptRecord[];
  /** Targets that failed since the last wait, without a window of their own (made at the first). */
  excluded?: Set<string>;
  /**
   * When the first wait after they failed ends: past it they are tried again, even if every wait
   * since was cut short by a wake-up (each re-decided wait starts a fresh backoff).
   */
  excludedUntil?: number;
}

/** No prefixes (no cache affinity, or a short prompt): shared, never mutated. */
const NO_PREFIXES: readonly Prefix[] = Object.freeze([]);

/** A request that can be routed: its state and the targets it may go to. */
export interface Arrived {
  state: RequestState;
  candidates: TargetRuntime[];
}

/**
 * A request as it arrives at `now`, or the answer for one that cannot be routed (an invalid body,
 * a model routed nowhere): its one deadline, no attempts yet, no prefixes looked up yet.
 */
export function requestStateOf(
  body: unknown,
  options: RouteOptions,
  routes: ModelRoutes,
  defaultDeadlineMs: number,
  now: number,
): Arrived | RouteResult {
  const api = options.api ?? 'chat';
  const valid = api === 'chat' ? validateChatRequest(body) : validateEmbeddingsRequest(body);
  if (!valid.ok) return failWith(400, 'invalid_request', 'invalid_request_error', valid.message, [], {}, valid.param);
  const req = valid.req;
  const candidates = routes.resolve(req.model, api);
  if (candidates.length === 0) return modelNotFound(req.model, api, routes.names());
  const budgetMs = Math.min(options.deadlineMs ?? Infinity, defaultDeadlineMs);
  const state: RequestState = {
    req,
    api,
    stream: api === 'chat' && req.stream === true,
    deadline: createDeadline(now, Math.max(0, budgetMs)),
    signal: options.signal ?? NEVER_CANCELLED,
    forward: options.forward ?? {},
    raw: options.raw,
    inputTokens: estimateInputTokens(req),
    attempts: [],
    prefixes: NO_PREFIXES,
  };
  return { state, candidates };
}
