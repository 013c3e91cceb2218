import type { LimitView } from '../quota/quota-set.js';
import { writeRetryHeaders, type HintSent } from './hint.js';
import { tightestView, withResetHint } from './limit-views.js';
import { openAICompatibleBase, openAIStyleError } from './openai.js';
import type { EncodeContext, EncodedError, ErrorSpec, HeaderMap, VendorProfile } from './types.js';
import { ceilSeconds } from './wire-format.js';

/** The policy name a limit is published under, e.g. `requests-60s`. */
function policyName(v: LimitView): string {
  return v.rule.metric === 'concurrency' ? 'concurrency' : `${v.rule.metric}-${Math.round(v.rule.windowMs / 1000)}s`;
}

function published(views: LimitView[], ctx: EncodeContext): LimitView[] {
  // Token quotas have no registered quota unit; they are published only when asked for.
  return views.filter(
    (v) => v.rule.metric === 'requests' || v.rule.metric === 'concurrency' || ctx.options.tokenPolicies === true,
  );
}

function unitParam(v: LimitView): string {
  if (v.rule.metric === 'concurrency') return ';qu="concurrent-requests"';
  if (v.rule.metric === 'requests') return '';
  return ';qu="tokens"';
}

const resetSeconds = (v: LimitView) => v.rawReset ?? String(ceilSeconds(v.resetInMs));

/**
 * The IETF RateLimit header fields in the syntax of the chosen draft: `-10` (Structured-Field
 * lists, the default), `-07` (a dictionary) or `-06` (separate `RateLimit-Limit/Remaining/Reset`).
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/
 */
function draftHeaders(views: LimitView[], headers: HeaderMap, ctx: EncodeContext): HeaderMap {
  const list = published(views, ctx);
  if (list.length === 0) return headers;
  const draft = ctx.options.draft ?? 'ietf-10';
  if (draft === 'ietf-10') {
    headers['ratelimit-policy'] = list
      .map(
        (v) =>
          `"${policyName(v)}";q=${v.limit}${v.rule.windowMs ? `;w=${Math.round(v.rule.windowMs / 1000)}` : ''}${unitParam(v)}`,
      )
      .join(', ');
    headers.ratelimit = list.map((v) => `"${policyName(v)}";r=${v.remaining};t=${resetSeconds(v)}`).join(', ');
    return headers;
  }
  const tight = tightestView(list, ['requests', 'concurrency', 'tokens'])!;
  const policies = list.map((v) => `${v.limit};w=${Math.round(v.rule.windowMs / 1000)}`).join(', ');
  if (draft === 'ietf-07') {
    headers.ratelimit = `limit=${tight.limit}, remaining=${tight.remaining}, reset=${resetSeconds(tight)}`;
    headers['ratelimit-policy'] = policies;
  } else {
    headers['ratelimit-limit'] = String(tight.limit);
    headers['ratelimit-remaining'] = String(tight.remaining);
    headers['ratelimit-reset'] = resetSeconds(tight);
    headers['ratelimit-policy'] = policies;
  }
  return headers;
}

function problem(type: string, title: string, violated: string[]): string {
  return JSON.stringify({
    type: `https://iana.org/assignments/http-problem-types#${type}`,
    title,
    'violated-policies': violated,
  });
}

function encodeDraftError(e: ErrorSpec, views: LimitView[], ctx: EncodeContext): EncodedError {
  const headers: HeaderMap = {};
  let sent: HintSent | undefined;
  let shown = views;
  const hint = e.hint;
  if (hint) {
    if (hint.form === 'vendor') {
      // Clients MUST prefer Retry-After over RateLimit when both are present.
      if (e.kind === 'rate_limited' || e.kind === 'unavailable' || e.kind === 'overloaded' || e.kind === 'capacity')
        sent = writeRetryHeaders({ ...hint, form: 'seconds' }, ctx, headers);
      // A 429's RateLimit fields agree with its Retry-After: the violated policy reads empty until
      // the wait ends, not until its window would have reset.
      if (e.kind === 'rate_limited') {
        const hinted = withResetHint(views, e.violation?.metric ?? 'requests', { ...hint, raw: undefined });
        // Only the violated policy (where the fault names one); the others keep their own state.
        const violated = e.violation?.rule;
        shown = violated ? views.map((v, i) => (v.rule === violated ? hinted[i]! : v)) : hinted;
      }
    } else if (hint.form === 'reset-header') {
      const metric = e.violation?.metric ?? 'requests';
      shown = withResetHint(views, metric, hint);
      // Only a published policy carries the wait; with none for the metric, nothing is claimed.
      if (published(views, ctx).some((v) => v.rule.metric === metric))
        sent = {
          ms: hint.raw !== undefined ? Number.NaN : ceilSeconds(Math.max(0, hint.ms)) * 1000,
          form: 'reset-header',
        };
    } else if (hint.form === 'seconds' || hint.form === 'ms' || hint.form === 'http-date') {
      sent = writeRetryHeaders(hint, ctx, headers);
    }
  }
  if (hint?.form !== 'none') draftHeaders(shown, headers, ctx);
  if (e.shouldRetry !== undefined) headers['x-should-retry'] = String(e.shouldRetry);
  const violated = e.violation ? [policyName({ rule: e.violation.rule } as LimitView)] : [];
  if (
    e.kind === 'rate_limited' ||
    e.kind === 'request_too_large' ||
    e.kind === 'quota_exhausted' ||
    e.kind === 'slow_down'
  ) {
    headers['content-type'] = 'application/problem+json';
    const body = problem('quota-exceeded', 'Request cannot be satisfied as assigned quota has been exceeded', violated);
    return { status: e.status ?? 429, headers, body, hintSent: sent, errorType: 'quota-exceeded' };
  }
  if (e.kind === 'overloaded' || e.kind === 'unavailable' || e.kind === 'capacity') {
    headers['content-type'] = 'application/problem+json';
    const body = problem('temporary-reduced-capacity', 'Temporary reduced capacity', violated);
    return { status: e.status ?? 503, headers, body, hintSent: sent, errorType: 'temporary-reduced-capacity' };
  }
  const styled = openAIStyleError(e, ctx, undefined);
  headers['content-type'] = styled.contentType ?? 'application/json';
  return { status: e.status ?? styled.status, headers, body: styled.body, hintSent: sent, errorType: styled.errorType };
}

/**
 * A generic OpenAI-compatible service that speaks only the IETF `RateLimit` / `RateLimit-Policy`
 * fields, `Retry-After` on 429 and 503, and RFC 9457 problem details with the draft's types.
 * @see https://www.ietf.org/archive/id/draft-ietf-httpapi-ratelimit-headers-10.txt
 */
export const ratelimitDraftProfile: VendorProfile = {
  id: 'ratelimit-draft',
  title: 'IETF RateLimit draft',
  bodyHints: false,
  defaults: {
    algorithm: { requests: 'fixed-window', tokens: 'fixed-window' },
    tokenAdmission: 'input',
    chargeOutputToTokens: true,
    countRejected: false,
    tokensPerFrame: 1,
  },
  ...openAICompatibleBase('/v1'),
  baseUrl: (root) => `${root}/v1`,
  envLines: (baseUrl, key) => [
    ['OPENAI_BASE_URL', baseUrl],
    ['OPENAI_API_KEY', key],
  ],
  error: encodeDraftError,
  rateLimitHeaders: (views, ctx) => draftHeaders(views, {}, ctx),
  commonHeaders: (ctx) => ({ 'x-request-id': ctx.requestId }),
};
