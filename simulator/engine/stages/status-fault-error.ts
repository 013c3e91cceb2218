import { createWindowStart } from '../../quota/window-start.js';
import type { FaultSpec } from '../../scenario/schema.js';
import type { ErrorKind, ErrorSpec } from '../../vendors/types.js';
import type { ProviderRuntime } from '../provider-runtime.js';

const DAY_MS = 86_400_000;

const DEFAULT_ERROR_STATUS: Record<number, ErrorKind> = {
  400: 'invalid_request',
  401: 'invalid_api_key',
  402: 'quota_exhausted',
  404: 'not_found',
  429: 'rate_limited',
  500: 'server_error',
  502: 'bad_gateway',
  503: 'overloaded',
  504: 'timeout',
  529: 'overloaded',
};

/** The error a forced status fault answers with at `now` on `provider`. */
export function statusFaultError(
  fault: FaultSpec & { kind: 'status' },
  provider: ProviderRuntime,
  now: number,
): ErrorSpec {
  const kind =
    fault.error ?? DEFAULT_ERROR_STATUS[fault.status] ?? (fault.status >= 500 ? 'server_error' : 'invalid_request');
  // Throttling errors carry the vendor's usual wait unless told otherwise; other errors carry
  // none, but keep the vendor's usual headers, unless the fault names a hint.
  const throttling =
    kind === 'rate_limited' || kind === 'quota_exhausted' || kind === 'capacity' || kind === 'slow_down';
  const form = fault.hint?.form ?? (throttling ? 'vendor' : undefined);
  return {
    kind,
    status: fault.status,
    message: fault.message,
    shouldRetry: fault.shouldRetry,
    // A forced refusal is the key's unless the fault names a wider scope.
    scope: fault.hint?.scope ?? 'key',
    hint: form === undefined ? undefined : { ms: defaultHintMs(provider, fault, now), form, raw: fault.hint?.raw },
  };
}

// Waits a forced fault announces when the scenario names none: a daily wall lasts until the
// provider's day window ends, or without one until the vendor's midnight (Pacific for Gemini,
// UTC otherwise); anything else a second.
function defaultHintMs(provider: ProviderRuntime, fault: FaultSpec & { kind: 'status' }, now: number): number {
  if (fault.hint?.after !== undefined) return fault.hint.after;
  if (fault.error === 'quota_exhausted') {
    const daily = provider.quota.rules.find((r) => r.windowMs >= DAY_MS && r.windowStart);
    if (daily?.windowStart) return daily.windowStart(now) + daily.windowMs - now;
    return createWindowStart(DAY_MS, provider.profile.defaults.dayWindowTimeZone)(now) + DAY_MS - now;
  }
  return 1000;
}
