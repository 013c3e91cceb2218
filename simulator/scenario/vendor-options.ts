import { z } from 'zod';
import type { VendorId } from '../vendors/types.js';

/**
 * Options every vendor takes. `contextWindow`: the most prompt tokens a model takes; a longer
 * prompt is refused with the vendor's 400 (OpenAI's `context_length_exceeded`, Anthropic's
 * "prompt is too long"), as no retry could change.
 */
export const COMMON_OPTIONS = { contextWindow: z.number().int().positive().optional() };

/**
 * The vendor-specific switches, one strict schema per vendor. Most exist because the behaviour
 * is UNCONFIRMED in docs/vendor-facts.md, so the scenario picks it.
 */
export const VENDOR_OPTIONS: Record<VendorId, z.ZodType> = {
  openai: z.strictObject({
    /** Send `retry-after` on 429s (its presence on OpenAI 429s is unconfirmed). */
    retryAfterOn429: z.boolean().optional(),
    /** Add the undocumented `x-ratelimit-*-tokens_usage_based` headers. */
    usageBasedHeaders: z.boolean().optional(),
  }),
  'azure-openai': z.strictObject({
    /** Report `-1` limits and no retry hint, as the Responses API was seen to. */
    unknownLimits: z.boolean().optional(),
    /** Spell the reset header `x-rate-limit-reset-tokens`, as seen in 2023. */
    hyphenatedResetHeader: z.boolean().optional(),
    region: z.string().optional(),
  }),
  anthropic: z.strictObject({
    /**
     * `x-should-retry`: `observed` sends `true` on 429 rate limits and overload (as captured) and
     * nothing on other errors; `false-on-4xx` also sends `false` on the other 4xx (UNCONFIRMED);
     * `never` sends none.
     */
    shouldRetryHeader: z.enum(['observed', 'false-on-4xx', 'never']).optional(),
  }),
  gemini: z.strictObject({
    tier: z.enum(['free', 'paid']).optional(),
    /** Also state the wait in the message ("Please retry in 53.01s."). */
    retryInMessage: z.boolean().optional(),
    /**
     * The layout of `streamGenerateContent` without `alt=sse` (UNCONFIRMED): `lines` puts the
     * separators and the closing `]` on lines of their own, `compact` writes `},\r\n{` and `}]`.
     */
    arrayLayout: z.enum(['lines', 'compact']).optional(),
  }),
  groq: z.strictObject({
    /** Where stream usage goes: `x_groq.usage` (UNCONFIRMED), the OpenAI usage chunk, or both. */
    streamUsage: z.enum(['x_groq', 'usage', 'both']).optional(),
    region: z.string().optional(),
    /** x-ratelimit-* headers on 429s: `none` as captured on an RPM 429, or `all` (UNCONFIRMED). */
    headersOn429: z.enum(['none', 'all']).optional(),
  }),
  mistral: z.strictObject({
    /** The `ratelimitbysize-*` names come from client parsers, not official docs. */
    headers: z.enum(['ratelimitbysize', 'none']).optional(),
    /** The 2026 `code: "1300"` body or Kong's bare 2025 message. */
    rateLimitBody: z.enum(['code-1300', 'kong']).optional(),
  }),
  deepseek: z.strictObject({}),
  bedrock: z.strictObject({}),
  'vertex-ai': z.strictObject({
    /** Add RetryInfo to vendor-form 429s (under dynamic shared quota Vertex sends none). */
    retryInfo: z.boolean().optional(),
  }),
  openrouter: z.strictObject({
    /** Send the documented-as-optional `Retry-After` on 429 and 503 (default true). */
    retryAfter: z.boolean().optional(),
  }),
  cerebras: z.strictObject({
    /** Send `retry-after` on 429s (UNCONFIRMED; default off). */
    retryAfterOn429: z.boolean().optional(),
    /** Add the `x-ratelimit-*-requests-minute` family seen in one fixture (UNCONFIRMED). */
    requestsMinuteHeaders: z.boolean().optional(),
  }),
  together: z.strictObject({
    /** Send `retry-after` on 429s (UNCONFIRMED; default off). */
    retryAfterOn429: z.boolean().optional(),
    /** Put `usage` on every stream's finish chunk, `stream_options` or not (UNCONFIRMED; default off). */
    usageOnFinish: z.boolean().optional(),
  }),
  xai: z.strictObject({
    /** The credits wall's status: 403 `permission-denied` (later captures, default) or 429 (early 2026). */
    creditsWallStatus: z.union([z.literal(403), z.literal(429)]).optional(),
  }),
  'ratelimit-draft': z.strictObject({
    draft: z.enum(['ietf-10', 'ietf-07', 'ietf-06']).optional(),
    /** Publish token quotas too, with the unregistered unit `qu="tokens"`. */
    tokenPolicies: z.boolean().optional(),
  }),
};
