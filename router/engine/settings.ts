import type { RouterConfig } from '../config/schema.js';
import type { CircuitOptions } from '../core/circuit.js';
import type { BreakerSettings } from '../core/circuit-policy.js';

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
