import { describe, expect, it } from 'vitest';
import { input, limited, row, T0 } from '../../test/helpers/evidence.js';
import { checkNoBlindRetry, judgeGrowth } from './no-blind-retry.js';
import { runChecks } from './run-checks.js';

const failed500 = (at: number, id: string) =>
  row({ at, firstByteAt: T0 + at + 1, endAt: T0 + at + 2, status: 500, errorType: 'server_error', correlationId: id });

describe('checkNoBlindRetry', () => {
  it('fails when the same request comes back to the provider sooner than the floor', () => {
    const r = checkNoBlindRetry(input({ rows: [failed500(0, 'a'), row({ at: 10, correlationId: 'a' })] }));
    expect(r).toMatchObject({ verdict: 'fail', violations: 1 });
    expect(r.evidence[0]).toMatchObject({ correlationId: 'a', detail: 'retried 8 ms after a hint-less 500' });
  });

  it('passes when the request backs off, or fails over to another provider', () => {
    expect(checkNoBlindRetry(input({ rows: [failed500(0, 'a'), row({ at: 300, correlationId: 'a' })] })).verdict).toBe(
      'pass',
    );
    const r = checkNoBlindRetry(
      input({ rows: [failed500(0, 'a'), row({ at: 3, provider: 'anthropic', correlationId: 'a' })] }),
    );
    expect(r).toMatchObject({ verdict: 'pass', figure: '1 hint-less failure, never retried on the same provider' });
  });

  it('does not mistake another request arriving meanwhile for a retry', () => {
    expect(checkNoBlindRetry(input({ rows: [failed500(0, 'a'), row({ at: 3, correlationId: 'b' })] })).verdict).toBe(
      'pass',
    );
  });

  it('counts cut streams and resets as failures, and a hinted 429 as not blind', () => {
    const cut = row({ at: 0, stream: true, end: 'truncated', correlationId: 'a' });
    expect(checkNoBlindRetry(input({ rows: [cut, row({ at: 30, correlationId: 'a' })] })).verdict).toBe('fail');
    expect(
      checkNoBlindRetry(input({ rows: [limited(0, 20, { correlationId: 'a' }), row({ at: 30, correlationId: 'a' })] }))
        .figure,
    ).toBe('no hint-less failures');
  });

  it('passes a backoff that doubles, and fails a fixed-interval loop however long its interval', () => {
    // Ten requests, each failing three times on openai with the gaps given, then served.
    const chains = (gaps: (i: number) => number[]) =>
      Array.from({ length: 10 }, (_, i) => {
        const out = [];
        let at = i * 100_000;
        for (const gap of gaps(i)) {
          out.push(failed500(at, `r${i}`));
          at += 2 + gap;
        }
        out.push(row({ at, correlationId: `r${i}` }));
        return out;
      }).flat();
    const doubling = checkNoBlindRetry(input({ rows: chains((i) => [400 + i * 10, 800 + i * 13, 1600 - i * 20]) }));
    expect(doubling.verdict, doubling.figure).toBe('pass');
    expect(doubling.figure).toMatch(/successive gaps grew ×1\.84 /);
    for (const interval of [100, 1000, 3000]) {
      const fixed = checkNoBlindRetry(input({ rows: chains(() => [interval, interval, interval]) }));
      expect(fixed.verdict, `${interval} ms`).toBe('fail');
      expect(fixed.figure).toMatch(/no backoff growth/);
      expect(fixed.evidence[0]!.detail).toBe(
        `backoff did not grow: retried ${interval} ms, then ${interval} ms after hint-less 500 and 500`,
      );
    }
  });

  it('does not judge growth at the cap, nor from fewer than five pairs', () => {
    const chain = (id: string, gap: number, n = 3) => {
      const out = [];
      for (let k = 0; k < n; k++) out.push(failed500(k * (gap + 2), id));
      out.push(row({ at: n * (gap + 2), correlationId: id }));
      return out;
    };
    // A backoff held at its 8 s cap stops growing; so may a few jittered gaps.
    const capped = Array.from({ length: 6 }, (_, i) => chain(`c${i}`, 8000)).flat();
    expect(checkNoBlindRetry(input({ rows: capped })).verdict).toBe('pass');
    const few = checkNoBlindRetry(input({ rows: [...chain('a', 100), ...chain('b', 100)] }));
    expect(few.verdict).toBe('pass');
    expect(few.figure).toMatch(/4 pairs of successive gaps, too few to judge growth/);
  });

  it('lets full jitter shrink a gap now and then (judged over the run, not per pair)', () => {
    // Gaps uniform in [0, 400·2^k]: some pairs shrink, the run grows about ×2.
    const ratios = [0.6, 3.1, 1.4, 5.2, 0.9, 2.8, 1.7, 4.4, 0.7, 2.2];
    expect(judgeGrowth(ratios.map((r) => [{ gapMs: 300 }, { gapMs: 300 * r }] as const)).fails).toBe(false);
    expect(judgeGrowth(ratios.map(() => [{ gapMs: 300 }, { gapMs: 305 }] as const)).fails).toBe(true);
  });

  it('makes a floor violation within the harness lag INCONCLUSIVE, not a fail', () => {
    const rows = [failed500(0, 'a'), row({ at: 40, correlationId: 'a' })];
    const slow = { loopP99Ms: 60, loopMaxMs: 90, sendP99Ms: 5, sendMaxMs: 10 };
    const judged = (lag?: typeof slow) =>
      runChecks({ ...input({ rows }), ...(lag ? { lag } : {}) }).find((c) => c.id === 'no-blind-retry')!;
    expect(judged().verdict).toBe('fail');
    expect(judged(slow).verdict).toBe('inconclusive');
  });
});
