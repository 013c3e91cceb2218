import type { RouterConfig } from '../config/schema.js';
import type { CircuitOptions } from '../core/circuit.js';
import type { BreakerSettings } from '../core/circuit-policy.js';
import type { NextSettings } from '../core/decide-next.js';
import type { RetryBudgetOptions } from '../core/retry-budget.js';
import type { AttemptEnv } from './attempt.js';
import type { SelectorSettings } from './selector.js';
import { createRedactor } from './redact.js';

/** The circuit state machine's settings from a config. */
export function circuitOptionsOf(config: RouterConfig): CircuitOptions {
  return {
    failureThreshold: config.breaker.failureThreshold,
    openMs: config.breaker.openFor,
    maxOpenMs: config.breaker.maxOpenFor,
    maxBackoffMs: config.breaker.maxBackoffOpenFor,
    jitterRatio: config.breaker.jitterRatio,
    probeLeaseMs: config.attempt.timeout,
  };
}

/** The breaker rule's settings from a config. */
export function breakerSettingsOf(config: RouterConfig): BreakerSettings {
  return {
    openForMs: config.breaker.openFor,
    quotaOpenForMs: config.breaker.quotaOpenFor,
    rejectedOpenForMs: config.breaker.rejectedOpenFor,
    maxOpenForMs: config.breaker.maxOpenFor,
    maxBackoffOpenForMs: config.breaker.maxBackoffOpenFor,
    floorMs: config.retry.backoff.base,
  };
}

/** The request loop's settings from a config. */
export function nextSettingsOf(config: RouterConfig): NextSettings {
  const { retry } = config;
  return {
    maxAttempts: retry.maxAttempts,
    backoff: { baseMs: retry.backoff.base, maxMs: retry.backoff.max },
    maxWaitMs: retry.maxWait,
    minAttemptMs: retry.minAttempt,
    maxWaiting: config.admission.maxWaiting,
  };
}

/** The retry budget's settings from a config. */
export function retryBudgetOptionsOf(config: RouterConfig): RetryBudgetOptions {
  const { budget } = config.retry;
  return { ratio: budget.ratio, minPerWindow: budget.minPerWindow, windowMs: budget.window };
}

/** What every attempt shares, from a config, the router's clock, transport and capacity, and the keys to keep secret. */
export function attemptEnvOf(
  config: RouterConfig,
  parts: Pick<AttemptEnv, 'clock' | 'transport' | 'capacity'>,
  apiKeys: Iterable<string>,
): AttemptEnv {
  return {
    ...parts,
    attemptTimeoutMs: config.attempt.timeout,
    firstTokenTimeoutMs: config.attempt.firstTokenTimeout,
    leaveRoomToFailOver: config.attempt.leaveRoomToFailOver,
    defaultMaxTokens: config.routing.defaultMaxTokens,
    maxResponseBytes: config.attempt.maxResponseBytes,
    buffers: { held: 0, max: config.attempt.maxBufferedBytes },
    redact: createRedactor(apiKeys),
  };
}

/** How selection ranks and how far ahead it looks, from a config. */
export function selectorSettingsOf(config: RouterConfig): SelectorSettings {
  return {
    weights: config.routing.weights,
    affinity: config.cacheAffinity.enabled,
    maxWaitMs: config.retry.maxWait,
    maxOpenForMs: config.breaker.maxOpenFor,
    explore: { share: config.routing.explore.share, staleAfterMs: config.routing.explore.staleAfter },
  };
}
