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
      /^arrived 1000 ms before the end of a 2000 ms wait announced by attempt #\d+ \(seconds\); 1000 ms into it$/,
    );
  });

  it('counts another request arriving within the tolerance of the hint leaving as a race, never the same request', () => {
    const hint = limited(0, 2000, { correlationId: 'a' });
    const race = checkRetryAfter(input({ rows: [hint, row({ at: 5, correlationId: 'b' })], outcomes: open }));
    expect(race).toMatchObject({ verdict: 'pass', violations: 0, details: { races: 1 } });
    expect(race.figure).toMatch(/1 in-flight race not counted/);
    expect(checkRetryAfter(input({ rows: [hint, row({ at: 5, correlationId: 'a' })] })).verdict).toBe('fail');
  });

  it('forgives no fixed grace: another request 30 ms or 77 ms into the wait, with nothing stalled, is a violation', () => {
    const hint = limited(0, 2000, { correlationId: 'a' });
    for (const at of [30, 77])
      expect(checkRetryAfter(input({ rows: [hint, row({ at, correlationId: 'b' })], outcomes: open })).verdict).toBe(
        'fail',
      );
  });

  it('lists real violations before races, and a race never hides a violation of an older wait', () => {
    const rows = [
      limited(0, 5000, { correlationId: 'a' }),
      row({ at: 1000, correlationId: 'b' }),
      limited(2000, 1000, { correlationId: 'c', model: 'gpt-4o-mini' }),
      row({ at: 2003, correlationId: 'd' }),
      row({ at: 4003, correlationId: 'e', model: 'gpt-4o' }),
      limited(4000, 500, { correlationId: 'f', model: 'gpt-4o' }),
    ];
    const r = checkRetryAfter(input({ rows, outcomes: open }));
    // 'd' raced the wait of 'c', but 'a''s wait had begun 2 s before: a violation. 'e' raced 'f''s.
    expect(r.evidence.map((e) => e.correlationId)).toEqual(['b', 'c', 'd']);
    expect(r.details).toMatchObject({ races: 1 });
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

  it('makes an early attempt a lagging harness could have stamped late INCONCLUSIVE, never a pass', () => {
    const rows = [limited(0, 25_200_000, { correlationId: 'a' }), row({ at: 300, correlationId: 'b' })];
    const slow = { loopP99Ms: 400, loopMaxMs: 900, sendP99Ms: 20, sendMaxMs: 40 };
    const judge = (r: typeof rows) =>
      runChecks({ ...input({ rows: r, outcomes: open }), lag: slow }).find((c) => c.id === 'retry-after')!;
    expect(checkRetryAfter(input({ rows, outcomes: open })).verdict).toBe('fail');
    expect(judge(rows).verdict).toBe('inconclusive');
    // The request that drew the hint is judged against the lag's p99, not its longest stall.
    const again = [limited(0, 25_200_000, { correlationId: 'a' }), row({ at: 1000, correlationId: 'a' })];
    expect(judge(again).verdict).toBe('fail');
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

  it("counts another request's attempt as a race when the time since the wait began was all stalls", () => {
    const rows = [limited(0, 20_000, { correlationId: 'a' }), row({ at: 1900, correlationId: 'b' })];
    // 1.9 s into the wait, 1.88 s of it stalls (several, none longer than 0.8 s).
    const r = judge(rows, stalls([5, 810], [812, 1620], [1620, 1900]));
    expect(r.verdict, r.figure).toBe('pass');
    expect(r.details).toMatchObject({ races: 1 });
  });

  it('fails a real violation beside seventeen races (races never fail, and never mask one)', () => {
    const rows = [limited(0, 20_000, { correlationId: 'a' })];
    for (let i = 0; i < 17; i++) rows.push(row({ at: 100 + i, correlationId: `r${i}` }));
    rows.push(row({ at: 1900, correlationId: 'b' }));
    const r = judge(rows, stalls([10, 200]));
    expect(r.verdict, r.figure).toBe('fail');
    expect(r.violations).toBe(1);
    expect(r.evidence[0]!.correlationId).toBe('b');
    expect(judge(rows.slice(0, -1), stalls([10, 200])).verdict).toBe('pass');
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

  it("counts another request's attempt as a race when the loop's stalls and the router's wait for a CPU fill the time since the wait began", () => {
    const rows = [limited(0, 20_000, { correlationId: 'a' }), row({ at: 1900, correlationId: 'b' })];
    expect(judge(rows, stalls([10, 810]), stalls([810, 1900]))).toMatchObject({
      verdict: 'pass',
      details: { races: 1 },
    });
    // The router's wait alone explaining it.
    expect(judge(rows, stalls(), stalls([10, 1900]))).toMatchObject({ verdict: 'pass', details: { races: 1 } });
    // Either alone leaves over a second unexplained: a FAIL.
    expect(judge(rows, stalls([10, 810]), stalls()).verdict).toBe('fail');
    expect(judge(rows, stalls(), stalls([810, 1900])).verdict).toBe('fail');
  });

  it('never excuses the request that drew the hint, however starved the router was', () => {
    const again = [limited(0, 20_000, { correlationId: 'a' }), row({ at: 1900, correlationId: 'a' })];
    expect(judge(again, stalls(), stalls([0, 1900])).verdict).toBe('fail');
  });
});
