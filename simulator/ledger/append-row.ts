import type { Ledger } from './ledger.js';
import type { LedgerRow } from './ledger-row.js';

const nan = (v: number | null) => (v === null ? Number.NaN : v);

/**
 * Records an attempt that ended elsewhere (another worker of a group) in `ledger`, as if it had
 * been served here: it gets this ledger's next `seq` and reaches its sinks (the event streams).
 */
export function appendRow(ledger: Ledger, row: LedgerRow): number {
  const seq = ledger.begin({
    arrivalAt: row.arrivalAt,
    provider: row.provider,
    vendor: row.vendor,
    key: row.key,
    endpoint: row.endpoint,
    model: row.model,
    correlationId: row.correlationId,
    sdkRetryCount: row.sdkRetryCount,
    stream: row.stream,
    ...(row.carried.length ? { carried: row.carried } : {}),
    ...(row.request === undefined ? {} : { request: row.request }),
  });
  ledger.plan(seq, {
    status: row.status,
    errorType: row.errorType,
    // A garbage hint is NaN in a plan and null with its form in a row.
    hintMs: row.hintForm === 'garbage' ? Number.NaN : row.hintMs,
    hintForm: row.hintForm === 'garbage' ? null : row.hintForm,
    ...(row.scope ? { scope: row.scope } : {}),
    ...(row.org === undefined ? {} : { org: row.org }),
    requestsBefore: nan(row.quota.requestsBefore),
    requestsAfter: nan(row.quota.requestsAfter),
    tokensBefore: nan(row.quota.tokensBefore),
    tokensAfter: nan(row.quota.tokensAfter),
    emptyForMs: nan(row.quota.emptyForMs),
    tokensIn: row.tokensIn,
    tokensOut: row.tokensOut,
    ...(row.cacheRead ? { cacheRead: row.cacheRead } : {}),
    ...(row.cacheWrite ? { cacheWrite: row.cacheWrite } : {}),
    faults: row.faults,
    end: row.end,
    contentDigest: row.contentDigest === null ? Number.NaN : Number.parseInt(row.contentDigest, 16),
    ...(row.contentChars === null ? {} : { contentChars: row.contentChars }),
    ...(row.degraded ? { degraded: true } : {}),
  });
  if (row.firstByteAt !== null) ledger.firstByteAt(seq, row.firstByteAt);
  ledger.finish(seq, row.endAt ?? row.arrivalAt, undefined, undefined);
  return seq;
}
