import type { VendorKind } from '../core/types.js';
import { decodeAnthropicHeaders } from './anthropic-headers.js';
import {
  decodeGoogleDetails,
  decodeMessageWait,
  isOverloadedBody,
  isQuotaExhaustedBody,
  parseJsonBody,
} from './body-hints.js';
import { decodeIetfRateLimit } from './ietf-ratelimit.js';
import { decodeMistralHeaders } from './mistral-headers.js';
import { decodeCerebrasHeaders } from './cerebras-headers.js';
import { decodeOpenRouterHeaders } from './openrouter-headers.js';
import { decodeTogetherHeaders } from './together-headers.js';
import { decodeRetryAfter } from './retry-after.js';
import type { HeaderGetter, LimitSignal, Signals } from '../core/signals.js';
import { decodeXRateLimit } from './x-ratelimit.js';

const REFILL: Record<VendorKind, Signals['refill']> = {
  openai: 'continuous',
  groq: 'continuous',
  anthropic: 'continuous',
  'azure-openai': 'window',
  gemini: 'window',
  mistral: 'window',
  deepseek: 'unknown',
  'openai-compatible': 'unknown',
  bedrock: 'unknown',
  'vertex-ai': 'window',
  openrouter: 'window',
  cerebras: 'continuous',
  together: 'continuous',
  xai: 'unknown',
};

// Vendor-specific walls and overload that no generic field names.
function vendorBody(
  vendor: VendorKind,
  status: number,
  get: HeaderGetter,
  body: Record<string, unknown> | undefined,
  signals: Signals,
): void {
  if (vendor === 'bedrock') {
    const type = get('x-amzn-errortype') ?? '';
    if (type.startsWith('ServiceQuotaExceededException')) signals.quotaExhausted = true;
    if (/^(ModelNotReadyException|ServiceUnavailableException)/.test(type)) signals.overloaded = true;
  } else if (vendor === 'xai' && body) {
    // The credits wall: 403 `permission-denied` (or 429), named only in the flat body.
    const text = `${String(body.code ?? '')} ${String(body.error ?? '')}`;
    if (status !== 400 && /permission-denied|used all available credits|spending limit/i.test(text))
      signals.quotaExhausted = true;
  } else if (vendor === 'cerebras' && body && body.code === 'queue_exceeded') {
    signals.overloaded = true;
  }
}

/** Vendors that send no rate-limit headers at all. */
const NO_HEADERS = new Set<VendorKind>(['gemini', 'vertex-ai', 'deepseek', 'bedrock', 'xai']);

/** Waits at or above this read as "gone for hours": a quota wall, not a rate limit. */
export const QUOTA_WALL_MS = 15 * 60_000;

function exhaustedReset(now: number, ...limits: Array<LimitSignal | undefined>): number | undefined {
  let latest: number | undefined;
  for (const l of limits)
    if (
      l &&
      l.remaining === 0 &&
      l.resetAt !== undefined &&
      l.resetAt > now &&
      (latest === undefined || l.resetAt > latest)
    )
      latest = l.resetAt;
  return latest === undefined ? undefined : latest - now;
}

/**
 * Decodes every wait and capacity signal of a response into one vendor-neutral value. The wait
 * comes from, in order: `retry-after-ms`, `x-ms-retry-after-ms`, `retry-after` (seconds or
 * date), the body (`RetryInfo`, message text), then for a 429 the latest reset among exhausted
 * limits (as anthropic-sdk-typescript#357 asks). Hostile values are ignored, never trusted.
 */
export function decodeSignals(
  vendor: VendorKind,
  status: number,
  get: HeaderGetter,
  bodyText: string | undefined,
  now: number,
): Signals {
  const signals: Signals = { refill: REFILL[vendor] };
  if (vendor === 'anthropic') Object.assign(signals, decodeAnthropicHeaders(get));
  else if (vendor === 'mistral') Object.assign(signals, decodeMistralHeaders(get, now));
  else if (vendor === 'cerebras') Object.assign(signals, decodeCerebrasHeaders(get, now));
  else if (vendor === 'together') Object.assign(signals, decodeTogetherHeaders(get, now));
  else if (vendor === 'openrouter') Object.assign(signals, decodeOpenRouterHeaders(get, now));
  else if (!NO_HEADERS.has(vendor)) {
    Object.assign(signals, decodeXRateLimit(get, now));
    if (!signals.requests) {
      const ietf = decodeIetfRateLimit(get, now);
      if (ietf.requests) {
        signals.requests = ietf.requests;
        signals.refill = 'window';
      }
    }
  }
  const shouldRetry = get('x-should-retry');
  if (shouldRetry === 'true' || shouldRetry === 'false') signals.shouldRetry = shouldRetry === 'true';
  if (status < 400) return signals;

  const body = parseJsonBody(bodyText);
  const explicit = decodeRetryAfter(get, now);
  if (explicit) {
    signals.waitMs = explicit.waitMs;
    signals.waitSource = explicit.source;
  } else {
    const google =
      vendor === 'gemini' || vendor === 'vertex-ai' ? decodeGoogleDetails(body) : { daily: false, waitMs: undefined };
    const message = decodeMessageWait(body);
    if (google.waitMs !== undefined) [signals.waitMs, signals.waitSource] = [google.waitMs, 'body'];
    else if (message !== undefined) [signals.waitMs, signals.waitSource] = [message, 'message'];
    else if (status === 429) {
      const reset = exhaustedReset(now, signals.requests, signals.tokens);
      if (reset !== undefined) [signals.waitMs, signals.waitSource] = [reset, 'reset-header'];
    }
    if (google.daily) signals.quotaExhausted = true;
  }
  vendorBody(vendor, status, get, body, signals);
  if (isQuotaExhaustedBody(body) || status === 402) signals.quotaExhausted = true;
  if (signals.waitMs !== undefined && signals.waitMs >= QUOTA_WALL_MS) signals.quotaExhausted = true;
  if (isOverloadedBody(body)) signals.overloaded = true;
  return signals;
}
