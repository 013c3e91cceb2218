import { describe, expect, it } from 'vitest';
import { input, outcome, row } from '../../test/helpers/evidence.js';
import { checkDuplicateWork } from './duplicate-work.js';

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
