import type { CircuitState } from './circuit.js';
import type { AttemptOutcome } from './types.js';

/**
 * The breaker rule, the heart of the router: what one attempt's outcome does to the circuits of
 * the three scopes it passed through. Pure: the caller applies the operations to its CircuitBook.
 *
 * - `provider:<id>` opens for overload (529, 503 "overloaded"), and after consecutive 5xx,
 *   timeouts, network and stream errors: the whole provider is unwell.
 * - `key:<provider>/<key>` opens for a quota wall (billing, daily quota) and a rejected key.
 * - `limit:<provider>/<key>/<model>` opens for a rate limit: vendors count limits per model.
 */
export interface CircuitScopes {
  providerScope: string;
  keyScope: string;
  limitScope: string;
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
  const { outcome, scopes, probes, breaker: b, now } = input;
  const probe = (scope: string) => probes.includes(scope);
  const success = (scope: string): CircuitOp => ({ op: 'success', scope, probe: probe(scope) });
  const all = [scopes.providerScope, scopes.keyScope, scopes.limitScope];
  // The provider scope decided; any other lease this attempt held goes back untested.
  const releaseOthers = (): CircuitOp[] =>
    probes.filter((s) => s !== scopes.providerScope).map((scope) => ({ op: 'release', scope }));
  // An announced wait is honoured up to maxOpenFor (a daily wall's reset, not a hint years away).
  const hinted = (waitMs: number | undefined, fallbackMs: number) =>
    now + Math.min(Math.max(waitMs ?? fallbackMs, b.floorMs), b.maxOpenForMs);

  switch (outcome.kind) {
    case 'ok':
      return { reliability: 1, ops: all.map(success) };
    case 'stream_failed_late':
      return {
        ops: [
          {
            op: 'failure',
            scope: scopes.providerScope,
            reason: 'stream failed after first token',
            probe: probe(scopes.providerScope),
          },
        ],
      };
    case 'rate_limited':
      // With a hint: closed until it ends (never less than the floor); without: the base window.
      return {
        reliability: 1,
        ops: [
          success(scopes.providerScope),
          success(scopes.keyScope),
          {
            op: 'open',
            scope: scopes.limitScope,
            until: hinted(outcome.waitMs, b.openForMs),
            reason: 'rate limited',
          },
        ],
      };
    case 'quota_exhausted':
      return {
        reliability: 1,
        ops: [
          success(scopes.providerScope),
          {
            op: 'open',
            scope: scopes.keyScope,
            until: hinted(outcome.waitMs, b.quotaOpenForMs),
            reason: 'quota exhausted',
          },
        ],
      };
    case 'overloaded': {
      const c = input.providerCircuit;
      const grown = Math.min(b.maxBackoffOpenForMs, b.openForMs * 2 ** (c.state === 'closed' ? 0 : c.opens));
      return {
        reliability: 0,
        ops: [
          {
            op: 'open',
            scope: scopes.providerScope,
            until: hinted(outcome.waitMs, grown),
            reason: `overloaded (${outcome.status})`,
          },
          ...releaseOthers(),
        ],
      };
    }
    case 'server_error': {
      const reason = `server error (${outcome.status})`;
      const op: CircuitOp =
        outcome.waitMs !== undefined
          ? { op: 'open', scope: scopes.providerScope, until: hinted(outcome.waitMs, 0), reason }
          : { op: 'failure', scope: scopes.providerScope, reason, probe: probe(scopes.providerScope) };
      return { reliability: 0, ops: [op, ...releaseOthers()] };
    }
    case 'timeout':
    case 'network_error':
    case 'stream_error':
      return {
        reliability: 0,
        ops: [
          { op: 'failure', scope: scopes.providerScope, reason: outcome.kind, probe: probe(scopes.providerScope) },
          ...releaseOthers(),
        ],
      };
    case 'auth_error':
      return {
        ops: [
          success(scopes.providerScope),
          {
            op: 'open',
            scope: scopes.keyScope,
            until: now + Math.min(b.rejectedOpenForMs, b.maxOpenForMs),
            reason: `key rejected (${outcome.status})`,
          },
        ],
      };
    case 'not_found':
      return {
        ops: [success(scopes.providerScope), ...releaseOthers()],
        disableTargetUntil: now + Math.min(b.rejectedOpenForMs, b.maxOpenForMs),
      };
    case 'client_error':
      // The request was bad, not the provider: nothing opens, and a probe that got this far proved the way clear.
      return { ops: all.map(success) };
    case 'aborted':
      return { ops: probes.map((scope) => ({ op: 'release', scope })) };
  }
}
