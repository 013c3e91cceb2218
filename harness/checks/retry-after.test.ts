import { describe, expect, it } from 'vitest';
import { input, limited, outcome, row, stalls, T0, world } from '../../test/helpers/evidence.js';
import { runChecks } from './run-checks.js';
import { checkRetryAfter } from './retry-after.js';

// A client request open for the first five seconds: the router had something it could have sent.
const open = [outcome({ id: 'open', at: 0, endAt: T0 + 5000 })];

describe('checkRetryAfter', () => {
  it('passes when nothing reaches the key and model before the announced wait ends', () => {
    const r = checkRetryAfter(
      input({
        rows: [limited(0, 2000), row({ at: 2000 }), row({ at: 500, model: 'other' }), row({ at: 600, key: 'second' })],
        outcomes: open,
      }),
    );
    expect(r).toMatchObject({
      verdict: 'pass',
      violations: 0,
      figure: 'worst early arrival 0 ms; 0 early attempts over 1 announced wait',
    });
  });

  it('fails on an attempt inside the wait, naming it and how early it came', () => {
    const r = checkRetryAfter(
      input({ rows: [limited(0, 2000, { correlationId: 'a' }), row({ at: 1000, correlationId: 'b' })] }),
    );
    expect(r.verdict).toBe('fail');
    expect(r.value).toBe(1000);
    expect(r.evidence).toHaveLength(1);
    expect(r.evidence[0]).toMatchObject({ correlationId: 'b', provider: 'openai', key: 'main' });
    expect(r.evidence[0]!.detail).toMatch(
      /^arrived 1000 ms before the end of a 2000 ms wait announced by attempt #\d+ \(seconds\)$/,
    );
  });

  it('forgives other requests arriving within the in-flight grace, never the same request', () => {
    const hint = limited(0, 2000, { correlationId: 'a' });
    expect(checkRetryAfter(input({ rows: [hint, row({ at: 30, correlationId: 'b' })], outcomes: open })).verdict).toBe(
      'pass',
    );
    expect(checkRetryAfter(input({ rows: [hint, row({ at: 30, correlationId: 'a' })] })).verdict).toBe('fail');
  });

  it('tolerates timer granularity at the end of the wait, and no more', () => {
    expect(checkRetryAfter(input({ rows: [limited(0, 2000), row({ at: 1995 })], outcomes: open })).verdict).toBe(
      'pass',
    );
    expect(checkRetryAfter(input({ rows: [limited(0, 2000), row({ at: 1985 })] })).verdict).toBe('fail');
  });

  it('counts each early attempt once across overlapping waits', () => {
    const r = checkRetryAfter(input({ rows: [limited(0, 3000), limited(100, 3000), row({ at: 1000 })] }));
    // The 429 at 100 ms is itself early for the first wait; the 200 at 1 s breaks both waits but counts once.
    expect(r.violations).toBe(2);
  });

  it('ignores zero, negative and unparseable hints, which announce nothing', () => {
    const rows = [limited(0, 0), row({ at: 10, status: 429, hintMs: null, hintForm: 'garbage' }), row({ at: 20 })];
    expect(checkRetryAfter(input({ rows })).figure).toBe('no waits were announced');
  });

  it('judges per key when asked to', () => {
    const rows = [limited(0, 2000), row({ at: 1000, model: 'gpt-4o' })];
    expect(checkRetryAfter(input({ rows, outcomes: open })).verdict).toBe('pass');
    expect(checkRetryAfter(input({ rows, scenario: world('expect: { retryAfter: { scope: key } }') })).verdict).toBe(
      'fail',
    );
  });

  it('skips a wait no client request could have broken (nothing open then): not a pass', () => {
    const answered = [outcome({ id: 'early', at: 0, endAt: T0 + 10 })];
    const r = checkRetryAfter(input({ rows: [limited(0, 2000, { correlationId: 'early' })], outcomes: answered }));
    expect(r).toMatchObject({ verdict: 'skip', violations: 0 });
    expect(r.reason).toBe('no client request the router could have sent was open during any of the 1 announced wait');
    // A request for a model only the other provider serves could not have been sent to openai either.
    const elsewhere = [outcome({ id: 'x', at: 0, endAt: T0 + 5000, model: 'claude-haiku-4-5' })];
    expect(checkRetryAfter(input({ rows: [limited(0, 2000)], outcomes: elsewhere })).verdict).toBe('skip');
    expect(checkRetryAfter(input({ rows: [limited(0, 2000)], outcomes: open })).verdict).toBe('pass');
  });

  it('does not count in-flight attempts a lagging harness stamped late as early retries', () => {
    const rows = [limited(0, 25_200_000, { correlationId: 'a' }), row({ at: 300, correlationId: 'b' })];
    const slow = { loopP99Ms: 400, loopMaxMs: 900, sendP99Ms: 20, sendMaxMs: 40 };
    expect(checkRetryAfter(input({ rows, outcomes: open })).verdict).toBe('fail');
    expect(checkRetryAfter({ ...input({ rows, outcomes: open }), lag: slow }).verdict).toBe('pass');
    // The request that drew the hint is never forgiven, lag or not.
    const again = [limited(0, 25_200_000, { correlationId: 'a' }), row({ at: 300, correlationId: 'a' })];
    expect(checkRetryAfter({ ...input({ rows: again, outcomes: open }), lag: slow }).verdict).toBe('fail');
  });

  it('prints multi-day waits in human units', () => {
    const rows = [limited(0, 3 * 86_400_000, { correlationId: 'a' }), row({ at: 1000, correlationId: 'a' })];
    const r = checkRetryAfter(input({ rows, outcomes: open }));
    expect(r.evidence[0]!.detail).toMatch(/^arrived 2 d 23 h before the end of a 3 d 0 h wait/);
  });
});

// Seen on keys-orgs-long-waits: three other requests' attempts reached a key 117 ms into its 200 ms
// wait; the router had chosen them (its attempts' startedAt) 0.3–0.5 ms before the 429 left the
// simulator, and a 115 ms stall held them on the way.
describe('retry-after under a stalled loop', () => {
  const outcomes = [outcome({ id: 'a', at: 0, endAt: T0 + 3000 }), outcome({ id: 'b', at: 0, endAt: T0 + 3000 })];
  const judge = (rows: ReturnType<typeof row>[], loopBehindMs?: (from: number, to: number) => number) =>
    runChecks({ ...input({ rows, outcomes }), ...(loopBehindMs ? { loopBehindMs } : {}) }).find(
      (c) => c.id === 'retry-after',
    )!;

  it("makes another request's attempt INCONCLUSIVE when the time since the wait began was all stalls", () => {
    const rows = [limited(0, 20_000, { correlationId: 'a' }), row({ at: 1900, correlationId: 'b' })];
    // 1.9 s into the wait, 1.88 s of it stalls (several, none longer than 0.8 s).
    const r = judge(rows, stalls([10, 810], [820, 1620], [1620, 1900]));
    expect(r.verdict, r.figure).toBe('inconclusive');
    expect(r.reason).toMatch(/^harness overloaded: every early attempt was another request's/);
    expect(r.evidence[0]!.detail).toContain(
      "1900 ms after the wait began, 1880 ms of which the harness's loop was behind",
    );
  });

  it('still FAILs a router that sends into the wait when the loop was not behind, and the same request always', () => {
    const other = [limited(0, 20_000, { correlationId: 'a' }), row({ at: 1900, correlationId: 'b' })];
    expect(judge(other, stalls([10, 810])).verdict).toBe('fail');
    expect(judge(other).verdict).toBe('fail');
    const again = [limited(0, 20_000, { correlationId: 'a' }), row({ at: 1900, correlationId: 'a' })];
    expect(judge(again, stalls([0, 1900])).verdict).toBe('fail');
  });
});

describe('retry-after under a starved router process', () => {
  const outcomes = [outcome({ id: 'a', at: 0, endAt: T0 + 3000 }), outcome({ id: 'b', at: 0, endAt: T0 + 3000 })];
  const judge = (
    rows: ReturnType<typeof row>[],
    loopBehindMs: (from: number, to: number) => number,
    routerWaitMs: (from: number, to: number) => number,
  ) => runChecks({ ...input({ rows, outcomes }), loopBehindMs, routerWaitMs }).find((c) => c.id === 'retry-after')!;

  it("makes another request's attempt INCONCLUSIVE when the loop's stalls and the router's wait for a CPU fill the time since the wait began", () => {
    const rows = [limited(0, 20_000, { correlationId: 'a' }), row({ at: 1900, correlationId: 'b' })];
    const r = judge(rows, stalls([10, 810]), stalls([810, 1880]));
    expect(r.verdict, r.figure).toBe('inconclusive');
    expect(r.reason).toMatch(/^machine overloaded: every early attempt was another request's/);
    expect(r.evidence[0]!.detail).toContain(
      "1900 ms after the wait began, 800 ms of which the harness's loop was behind, 1070 ms the router waited for a CPU",
    );
    // The router's wait alone explaining it: no "0 ms of which the harness's loop was behind".
    const routerOnly = judge(rows, stalls(), stalls([10, 1880]));
    expect(routerOnly.verdict).toBe('inconclusive');
    expect(routerOnly.evidence[0]!.detail).toContain(
      '1900 ms after the wait began, 1870 ms the router waited for a CPU',
    );
    // Either alone leaves over a second unexplained: a FAIL.
    expect(judge(rows, stalls([10, 810]), stalls()).verdict).toBe('fail');
    expect(judge(rows, stalls(), stalls([810, 1880])).verdict).toBe('fail');
  });

  it('never excuses the request that drew the hint, however starved the router was', () => {
    const again = [limited(0, 20_000, { correlationId: 'a' }), row({ at: 1900, correlationId: 'a' })];
    expect(judge(again, stalls(), stalls([0, 1900])).verdict).toBe('fail');
  });
});
