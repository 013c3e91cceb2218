import type { CircuitState } from './circuit.js';
import type { AttemptOutcome } from './types.js';

/**
 * The breaker rule, the heart of the router: what one attempt's outcome does to the circuits of
 * the three scopes it passed through. Pure: the caller applies the operations to its CircuitBook.
 *
 * - `provider:<id>` opens for overload (529, 503 "overloaded"), and after consecutive 5xx,
 *   timeouts, network and stream errors: the whole provider is unwell. A first-token timeout
 *   after keep-alive filler only (a held request) opens nothing: the provider queues, it is not down.
 * - `key:<provider>/<key>` opens for a quota wall (billing, daily quota) and a rejected key.
 * - `limit:<provider>/<key>/<model>` opens for a rate limit: vendors count limits per model.
 * - `org-limit:<provider>/<org>/<model>`, shared by the keys configured with the same `org`,
 *   opens too when the provider names the limit as the organisation's (OpenAI's "in
 *   organization …", Anthropic's "for your organization"): the key's siblings would be refused
 *   as well. Never for a key's own limit.
 */
export interface CircuitScopes {
  providerScope: string;
  keyScope: string;
  limitScope: string;
  orgLimitScope?: string | undefined;
}

/** The breaker settings the rule reads, in milliseconds. */
export interface BreakerSettings {
  /** Window when neither a hint nor a growth rule says how long (unhinted 429, first overload). */
  openForMs: number;
  /** Window of a quota wall without a hint. */
  quotaOpenForMs: number;
  /** Window of a rejected key or a missing model (nothing announces its end). */
  rejectedOpenForMs: number;
  /** Longest window honoured: an announced wait beyond it (a reset years away) is cut to it. */
  maxOpenForMs: number;
  /** Cap of an unhinted overload window as it doubles with each re-open. */
  maxBackoffOpenForMs: number;
  /** No window is shorter than the retry backoff's base: a hint of 0 must not invite a hot loop. */
  floorMs: number;
}

/** What an attempt ended as, for the rule: an attempt outcome, or a stream that failed after its first token. */
export type PolicyOutcome = AttemptOutcome | { kind: 'stream_failed_late' };

/** One change to one circuit. */
export type CircuitOp =
  /** A success; only the probe's success closes an open or half-open circuit. */
  | { op: 'success'; scope: string; probe: boolean }
  /** A failure without a wait hint: counts toward the threshold, or re-opens a failed probe. */
  | { op: 'failure'; scope: string; reason: string; probe: boolean }
  /** Opens (or extends) the circuit until `until`. */
  | { op: 'open'; scope: string; until: number; reason: string }
  /** Gives back a probe lease this attempt held but did not test (another scope decided). */
  | { op: 'release'; scope: string };

/** The rule's decision for one attempt. */
export interface CircuitDecision {
  ops: CircuitOp[];
  /** A sample for the provider's reliability average: 1 it answered sanely, 0 it failed; none for the caller's own faults. */
  reliability?: 0 | 1;
  /** Excludes the target (provider, key and model) until then: the model does not exist there. */
  disableTargetUntil?: number;
}

/** What the rule needs to decide. */
export interface CircuitPolicyInput {
  outcome: PolicyOutcome;
  scopes: CircuitScopes;
  /** Scopes whose half-open probe lease this attempt held. */
  probes: readonly string[];
  breaker: BreakerSettings;
  now: number;
  /** The provider scope's circuit before this outcome (an unhinted overload window grows with its re-opens). */
  providerCircuit: CircuitState;
}

/** Decides what an attempt's outcome does to its circuits. */
export function decideCircuits(input: CircuitPolicyInput): CircuitDecision {
  const { outcome } = input;
  switch (outcome.kind) {
    case 'ok':
      return { reliability: 1, ops: allSucceeded(input) };
    case 'stream_failed_late':
      return { ops: [providerFailure(input, 'stream failed after first token')] };
    case 'rate_limited':
    case 'quota_exhausted':
    case 'auth_error':
    case 'not_found':
      return decideRefusal(input, outcome);
    case 'timeout':
      // Held with keep-alive filler (DeepSeek's queue): the provider is up and will serve; the
      // attempt fails over and ranking learns it is slow, but no window opens, for a window would
      // refuse the requests that name this provider alone until long after its queue drained.
      if (outcome.held) return { reliability: 0, ops: input.probes.map((scope) => ({ op: 'release', scope })) };
      return decideProviderFault(input, outcome);
    case 'overloaded':
    case 'server_error':
    case 'network_error':
    case 'stream_error':
      return decideProviderFault(input, outcome);
    case 'client_error':
      // The request was bad, not the provider: nothing opens, and a probe that got this far proved the way clear.
      return { ops: allSucceeded(input) };
    case 'aborted':
      return { ops: input.probes.map((scope) => ({ op: 'release', scope })) };
  }
}

type Outcome<K extends PolicyOutcome['kind']> = Extract<PolicyOutcome, { kind: K }>;

/**
 * The provider answered, and refused this key or model: the provider scope stays healthy and the
 * narrower scope the refusal names opens.
 */
function decideRefusal(
  input: CircuitPolicyInput,
  outcome: Outcome<'rate_limited' | 'quota_exhausted' | 'auth_error' | 'not_found'>,
): CircuitDecision {
  const { scopes, breaker: b, now } = input;
  switch (outcome.kind) {
    case 'rate_limited': {
      // With a hint: closed until it ends (never less than the floor); without: the base window.
      const until = hinted(input, outcome.waitMs, b.openForMs);
      const org = outcome.orgWide ? scopes.orgLimitScope : undefined;
      return {
        reliability: 1,
        ops: [
          success(input, scopes.providerScope),
          success(input, scopes.keyScope),
          // The key's own limit: its organisation's is not spent, and a probe there proved it.
          ...(org
            ? [open(org, until, 'rate limited (organisation)')]
            : scopes.orgLimitScope
              ? [success(input, scopes.orgLimitScope)]
              : []),
          open(scopes.limitScope, until, 'rate limited'),
        ],
      };
    }
    case 'quota_exhausted':
      return {
        reliability: 1,
        ops: [
          success(input, scopes.providerScope),
          open(scopes.keyScope, hinted(input, outcome.waitMs, b.quotaOpenForMs), 'quota exhausted'),
        ],
      };
    case 'auth_error':
      return {
        ops: [
          success(input, scopes.providerScope),
          open(
            scopes.keyScope,
            now + Math.min(b.rejectedOpenForMs, b.maxOpenForMs),
            `key rejected (${outcome.status})`,
          ),
        ],
      };
    case 'not_found':
      return {
        ops: [success(input, scopes.providerScope), ...releaseOthers(input)],
        disableTargetUntil: now + Math.min(b.rejectedOpenForMs, b.maxOpenForMs),
      };
  }
}

/** The provider itself failed: its scope opens or counts a failure, and any other lease goes back untested. */
function decideProviderFault(
  input: CircuitPolicyInput,
  outcome: Outcome<'overloaded' | 'server_error' | 'timeout' | 'network_error' | 'stream_error'>,
): CircuitDecision {
  const { providerScope } = input.scopes;
  let op: CircuitOp;
  if (outcome.kind === 'overloaded') {
    const b = input.breaker;
    const c = input.providerCircuit;
    const grown = Math.min(b.maxBackoffOpenForMs, b.openForMs * 2 ** (c.state === 'closed' ? 0 : c.opens));
    op = open(providerScope, hinted(input, outcome.waitMs, grown), `overloaded (${outcome.status})`);
  } else if (outcome.kind === 'server_error') {
    const reason = `server error (${outcome.status})`;
    op =
      outcome.waitMs !== undefined
        ? open(providerScope, hinted(input, outcome.waitMs, 0), reason)
        : providerFailure(input, reason);
  } else {
    op = providerFailure(input, outcome.kind);
  }
  return { reliability: 0, ops: [op, ...releaseOthers(input)] };
}

function success(input: CircuitPolicyInput, scope: string): CircuitOp {
  return { op: 'success', scope, probe: input.probes.includes(scope) };
}

function allSucceeded(input: CircuitPolicyInput): CircuitOp[] {
  const { providerScope, keyScope, limitScope, orgLimitScope } = input.scopes;
  const ops = [success(input, providerScope), success(input, keyScope), success(input, limitScope)];
  return orgLimitScope ? [...ops, success(input, orgLimitScope)] : ops;
}

function providerFailure(input: CircuitPolicyInput, reason: string): CircuitOp {
  const scope = input.scopes.providerScope;
  return { op: 'failure', scope, reason, probe: input.probes.includes(scope) };
}

function open(scope: string, until: number, reason: string): CircuitOp {
  return { op: 'open', scope, until, reason };
}

/** The provider scope decided; any other lease this attempt held goes back untested. */
function releaseOthers(input: CircuitPolicyInput): CircuitOp[] {
  return input.probes
    .filter((s) => s !== input.scopes.providerScope)
    .map((scope): CircuitOp => ({ op: 'release', scope }));
}

/** An announced wait is honoured up to maxOpenFor (a daily wall's reset, not a hint years away). */
function hinted(input: CircuitPolicyInput, waitMs: number | undefined, fallbackMs: number): number {
  const b = input.breaker;
  return input.now + Math.min(Math.max(waitMs ?? fallbackMs, b.floorMs), b.maxOpenForMs);
}
