import { describe, expect, it } from 'vitest';
import { appendRow } from './append-row.js';
import { Ledger } from './ledger.js';

describe('appendRow', () => {
  it('records a row from another ledger so that it reads back the same but for its seq', () => {
    const from = new Ledger();
    const a = from.begin({
      arrivalAt: 1000.5,
      provider: 'openai',
      vendor: 'openai',
      key: 'main',
      endpoint: 'chat',
      model: 'gpt-4o',
      correlationId: 'r1-7',
      sdkRetryCount: 1,
      stream: true,
      carried: ['header:x-api-key=foreign:groq/main'],
      request: '{"maxTokens":5}',
    });
    from.plan(a, {
      status: 429,
      errorType: 'rate_limit_exceeded',
      hintMs: Number.NaN, // a garbage hint
      hintForm: 'seconds',
      scope: 'org',
      org: 'acme',
      requestsBefore: 0,
      requestsAfter: 0,
      tokensBefore: Number.NaN,
      tokensAfter: Number.NaN,
      emptyForMs: Number.NaN,
      tokensIn: 12,
      tokensOut: 0,
      faults: ['f1'],
      end: 'complete',
      degraded: true,
    });
    from.firstByteAt(a, 1001);
    from.finish(a, 1002, undefined, undefined);
    const b = from.begin({
      arrivalAt: 1003,
      provider: 'anthropic',
      vendor: 'anthropic',
      key: 'k',
      endpoint: 'chat',
      model: null,
      correlationId: null,
      sdkRetryCount: null,
      stream: false,
    });
    from.plan(b, {
      status: 200,
      errorType: null,
      hintMs: null,
      hintForm: null,
      requestsBefore: 5,
      requestsAfter: 4,
      tokensBefore: 100,
      tokensAfter: 80,
      emptyForMs: 0,
      tokensIn: 20,
      tokensOut: 9,
      cacheRead: 3,
      cacheWrite: 4,
      faults: [],
      end: 'complete',
      contentDigest: 0x1f2e3d4c5b6a7,
      contentChars: 42,
    });
    from.finish(b, 1010, 'client-abort', 7);

    const to = new Ledger();
    to.finish(to.begin({ ...from.row(b)!, carried: [] }), 999, undefined, undefined); // one of its own first
    const seen: number[] = [];
    to.addSink((row) => seen.push(row.seq));
    for (const row of from.rowsIterator()) appendRow(to, row);
    expect(seen).toEqual([1, 2]);
    expect(to.row(1)).toEqual({ ...from.row(a), seq: 1 });
    expect(to.row(2)).toEqual({ ...from.row(b), seq: 2 });
    expect(to.row(1)!.degraded).toBe(true);
    expect(to.row(2)!.degraded).toBeUndefined();
    expect(to.rowViews().map((r) => r.degraded)).toEqual([undefined, true, undefined]);
  });
});
