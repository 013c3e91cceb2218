import type { AttemptStart } from '../../ledger/ledger.js';
import type { Costs, LimitView, QuotaTicket } from '../../quota/quota-set.js';
import type { ChatRequest, EncodeContext, ErrorSpec, Route, SimRequest, VendorProfile } from '../../vendors/types.js';
import type { FaultDecision } from '../fault-book.js';
import type { KeyMatch, KeyOwner } from '../keyring.js';
import type { CacheLookup } from '../prompt-cache.js';
import type { ProviderRuntime } from '../provider-runtime.js';

/**
 * One request on its way through the stages (route → authenticate → parse → fault → cache →
 * quota → answer). The route stage makes it with every field present; each later stage fills its
 * own fields and hands the same object on under a narrower type, so the hot path makes no object
 * per stage and the object keeps one shape.
 */
export interface Attempt {
  readonly req: SimRequest;
  readonly provider: ProviderRuntime;
  /** The provider's profile with the bodies of the API the path names (chat, Responses, embeddings). */
  readonly profile: VendorProfile;
  readonly route: Route;
  /** The credential as presented; only its match and a masked form ever leave the engine. */
  readonly credential: string | undefined;
  readonly key: KeyMatch;
  /** What the vendor encoders read, the request's seeded stream (`ctx.rng`) among it. */
  readonly ctx: EncodeContext;
  /** What the ledger records of the request whatever its answer. */
  readonly start: AttemptStart;
  tokensIn: number;
  /** Ids of the faults applied, for the ledger. */
  faults: string[];
  /** Set by authenticate: whose key it is. */
  owner: KeyOwner | undefined;
  /** Set by parse: the body as JSON and as the vendor-neutral request. */
  body: unknown;
  chat: ChatRequest | undefined;
  /** Set by the fault stage. */
  decision: FaultDecision | undefined;
  /** Set by the cache stage: what the prompt cache would read and write, and the tokens it keeps off the limits. */
  lookup: CacheLookup | undefined;
  uncounted: number;
  /** Set by the quota stage once admitted. */
  costs: Costs | undefined;
  ticket: QuotaTicket | undefined;
  /**
   * How long the quota would refuse the same request again, once admitted. Undefined rather than
   * NaN before: a field that starts as a double is boxed, one more object per request.
   */
  emptyForMs: number | undefined;
  /** The cache lookup once committed: what the answer and the ledger report. */
  cache: CacheLookup | undefined;
  /** Set by a stage that refuses: the error, the real limits, and the limits its headers describe. */
  refusal: ErrorSpec | undefined;
  views: LimitView[];
  shown: LimitView[];
  /** Set before the quota stage when its gate decided without the shared engine (Redis did not answer). */
  degraded: boolean;
}

/** A chat route: one that is answered and metered. */
export type ChatRoute = Route & { kind: 'chat' };

/** An attempt with a key of the provider it reached. */
export type Authenticated = Attempt & { owner: KeyOwner };
/** An authenticated chat request with a valid body for a served model. */
export type Parsed = Authenticated & { route: ChatRoute; chat: ChatRequest };
/** A parsed request the faults let through. */
export type Faulted = Parsed & { decision: FaultDecision };
/** A request the quotas admitted, holding its ticket until the answer ends. */
export type Admitted = Faulted & { costs: Costs; ticket: QuotaTicket };
/** An attempt a stage turned away: the engine answers with its error. */
export type Refused = Attempt & { refusal: ErrorSpec };

/** No limits: what an answer that involved no quota describes. */
export const NO_VIEWS: LimitView[] = [];

/** Ends `attempt` with `error`; `views` are the real limits (for the ledger), `shown` the ones its headers describe. */
export function refuse(attempt: Attempt, error: ErrorSpec, views = NO_VIEWS, shown = views): Refused {
  attempt.refusal = error;
  attempt.views = views;
  attempt.shown = shown;
  return attempt as Refused;
}

/** Whether a stage turned the attempt away. */
export function isRefused(attempt: Attempt): attempt is Refused {
  return attempt.refusal !== undefined;
}

/** Whether the attempt asks for an answer (a chat route) rather than the model list. */
export function isChat<A extends Attempt>(attempt: A): attempt is A & { route: ChatRoute } {
  return attempt.route.kind === 'chat';
}
