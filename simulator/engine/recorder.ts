import type { ContentDigest } from '../core/content-digest.js';
import type { Ledger } from '../ledger/ledger.js';
import type { LedgerRow } from '../ledger/ledger-row.js';
import type { Costs, LimitView, QuotaTicket } from '../quota/quota-set.js';
import type { HeaderMap } from '../vendors/types.js';
import { StepBuilder } from './build-steps.js';
import type { ProviderRuntime } from './provider-runtime.js';
import type { Reply } from './reply.js';
import { NO_VIEWS, type Attempt, type Refused } from './stages/attempt.js';

const TOKEN_METRICS = ['tokens', 'input-tokens'];
const REQUEST_METRICS = ['requests'];

function minRemaining(views: readonly LimitView[], metrics: readonly string[]): number {
  let min = Number.NaN;
  for (const v of views) if (metrics.includes(v.rule.metric) && !(v.remaining >= min)) min = v.remaining;
  return min;
}

/**
 * Where an attempt's answer meets the ledger: records the row an answer plans, and wraps its
 * steps as a Reply whose head and finish complete the row (and settle the quota ticket).
 */
export class Recorder {
  private dateSecond = -1;
  private dateText = '';

  constructor(private readonly ledger: Ledger) {}

  /** The headers every answer of the vendor carries, `date` included. */
  headers(attempt: Attempt): HeaderMap {
    const headers = attempt.provider.profile.commonHeaders(attempt.ctx);
    headers.date = this.date(attempt.ctx.now);
    return headers;
  }

  /** Records and scripts a refused attempt's error, its headers describing the limits it was `shown`. */
  refusal(attempt: Refused): Reply {
    const { provider, ctx, refusal } = attempt;
    if (refusal.kind === 'invalid_api_key' || refusal.kind === 'missing_api_key') ctx.org = 'unknown';
    const encoded = provider.profile.error(refusal, attempt.shown, ctx);
    const headers = Object.assign(this.headers(attempt), encoded.headers);
    headers['content-length'] = String(Buffer.byteLength(encoded.body));
    const seq = this.record(
      attempt,
      encoded.status,
      encoded.errorType,
      encoded.hintSent,
      attempt.views,
      undefined,
      0,
      'complete',
    );
    const steps = new StepBuilder().wait(provider.latency.errorDelayMs).head().write(encoded.body).end();
    return this.reply(seq, encoded.status, headers, steps);
  }

  /** Records and scripts the provider's model list. */
  models(attempt: Attempt): Reply {
    const { provider, ctx } = attempt;
    const body = provider.profile.models(provider.spec.models, ctx);
    const headers = this.headers(attempt);
    headers['content-type'] = provider.profile.contentType?.(false, ctx) ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
    const seq = this.record(attempt, 200, null, undefined, NO_VIEWS, undefined, 0, 'complete');
    return this.reply(seq, 200, headers, new StepBuilder().head().write(body).end());
  }

  /** Opens and plans the attempt's ledger row; `views` are the limits after it, `admitted` what it took. */
  record(
    attempt: Attempt,
    status: number,
    errorType: string | null,
    hint: { ms: number; form: LedgerRow['hintForm'] } | undefined,
    views: readonly LimitView[],
    admitted: Costs | undefined,
    tokensOut: number,
    end: LedgerRow['end'],
    content?: ContentDigest,
  ): number {
    const seq = this.ledger.begin(attempt.start);
    const reqAfter = minRemaining(views, REQUEST_METRICS);
    const tokAfter = minRemaining(views, TOKEN_METRICS);
    this.ledger.plan(seq, {
      status,
      errorType,
      hintMs: hint ? hint.ms : null,
      hintForm: hint ? (hint.form as never) : null,
      // Whose limit a refusal's wait covers: the ledger keeps it only when a wait was announced.
      scope: attempt.refusal ? (attempt.refusal.scope ?? 'key') : undefined,
      org: attempt.owner?.org,
      requestsBefore: admitted ? reqAfter + admitted.requests : reqAfter,
      requestsAfter: reqAfter,
      tokensBefore: admitted ? tokAfter + admitted.tokens : tokAfter,
      tokensAfter: tokAfter,
      emptyForMs: attempt.emptyForMs ?? Number.NaN,
      tokensIn: attempt.tokensIn,
      tokensOut,
      cacheRead: attempt.cache?.read,
      cacheWrite: attempt.cache?.write,
      faults: attempt.faults,
      end,
      contentDigest: content ? content.value() : Number.NaN,
      contentChars: content?.length,
      degraded: attempt.degraded,
    });
    return seq;
  }

  /** The reply for ledger row `seq`; an admitted answer passes its provider and ticket to settle at the end. */
  reply(
    seq: number,
    status: number,
    headers: HeaderMap,
    steps: Reply['steps'],
    provider?: ProviderRuntime,
    ticket?: QuotaTicket,
  ): Reply {
    const ledger = this.ledger;
    const chargeOutput = provider?.accounting.chargeOutputToTokens ?? false;
    return {
      status,
      headers,
      steps,
      onHead: (at) => ledger.firstByteAt(seq, at),
      onFinish(at, outcome) {
        ledger.finish(
          seq,
          at,
          outcome.stopped ? 'shutdown' : outcome.aborted ? 'client-abort' : undefined,
          ticket ? outcome.tokensDelivered : undefined,
        );
        if (provider && ticket) {
          const out = outcome.tokensDelivered;
          ticket.gate.settle(ticket, { tokens: chargeOutput ? out : 0, 'output-tokens': out, concurrency: -1 }, at);
        }
      },
    };
  }

  // The header has whole seconds: one date formatted per second of traffic, not one per request.
  private date(now: number): string {
    const second = Math.floor(now / 1000);
    if (second !== this.dateSecond) {
      this.dateSecond = second;
      this.dateText = new Date(second * 1000).toUTCString();
    }
    return this.dateText;
  }
}
