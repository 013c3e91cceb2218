import { describe, expect, it } from 'vitest';
import { input, outcome, row } from '../../test/helpers/evidence.js';
import { checkDuplicateWork } from './duplicate-work.js';
import { discountHarnessLag } from './run-checks.js';

describe('checkDuplicateWork', () => {
  it('fails when one request billed two complete answers (a hedge left running)', () => {
    const rows = [
      row({ correlationId: 'a' }),
      row({ at: 3, correlationId: 'a', key: 'second' }),
      row({ correlationId: 'b' }),
    ];
    const r = checkDuplicateWork(input({ rows, outcomes: [outcome({ id: 'a' }), outcome({ id: 'b' })] }));
    expect(r).toMatchObject({ verdict: 'fail', value: 1, violations: 1 });
    expect(r.figure).toBe(
      '1 duplicate billed answer over 1 of 2 answered requests (10 prompt and 5 completion tokens billed for nothing)',
    );
    expect(r.evidence[0]).toMatchObject({
      correlationId: 'a',
      detail: expect.stringMatching(/^2 complete billed answers/),
    });
  });

  it('is INCONCLUSIVE when every re-send came within the harness’s longest stall of the answer it repeats', () => {
    // The first answer ends at +20 ms; the second is sent 40 ms later, the first answer maybe unread by a starved router.
    const rows = [row({ correlationId: 'a' }), row({ at: 60, correlationId: 'a', key: 'second' })];
    const r = checkDuplicateWork(input({ rows, outcomes: [outcome({ id: 'a' })] }));
    expect(r.timing).toEqual({ toleranceMs: 0, worstMarginMs: 40, lagBound: 'max' });
    const lag = { loopP99Ms: 10, loopMaxMs: 200, sendP99Ms: 0, sendMaxMs: 0 };
    expect(discountHarnessLag(r, lag).verdict).toBe('inconclusive');
    // A hedge, sent while the other attempt still ran, is duplicate work whatever the lag.
    const hedged = [row({ correlationId: 'a' }), row({ at: 3, correlationId: 'a', key: 'second' })];
    const h = checkDuplicateWork(input({ rows: hedged, outcomes: [outcome({ id: 'a' })] }));
    expect(discountHarnessLag(h, lag).verdict).toBe('fail');
  });

  it('passes a cancelled hedge, a cut stream and a failed attempt beside the one answer', () => {
    const rows = [
      row({ correlationId: 'a', end: 'client-abort', tokensOut: 2 }),
      row({ correlationId: 'a', end: 'truncated' }),
      row({ correlationId: 'a', status: 500, tokensOut: 0, end: 'complete' }),
      row({ correlationId: 'a' }),
    ];
    expect(checkDuplicateWork(input({ rows, outcomes: [outcome({ id: 'a' })] }))).toMatchObject({
      verdict: 'pass',
      figure: 'each of 1 answered request billed one complete answer',
    });
  });

  it('skips, saying why, when no attempt produced a complete billed answer', () => {
    const rows = [row({ correlationId: 'a', status: 503, tokensOut: 0 })];
    expect(checkDuplicateWork(input({ rows, outcomes: [outcome({ id: 'a', status: 503 })] }))).toMatchObject({
      verdict: 'skip',
      reason: 'no attempt produced a complete billed answer',
    });
  });
});
