import { describe, expect, it } from 'vitest';
import { input, limited, row, world } from '../../test/helpers/evidence.js';
import { checkRetryAfter } from './retry-after.js';

describe('checkRetryAfter', () => {
  it('passes when nothing reaches the key and model before the announced wait ends', () => {
    const r = checkRetryAfter(
      input({
        rows: [limited(0, 2000), row({ at: 2000 }), row({ at: 500, model: 'other' }), row({ at: 600, key: 'second' })],
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
    expect(checkRetryAfter(input({ rows: [hint, row({ at: 30, correlationId: 'b' })] })).verdict).toBe('pass');
    expect(checkRetryAfter(input({ rows: [hint, row({ at: 30, correlationId: 'a' })] })).verdict).toBe('fail');
  });

  it('tolerates timer granularity at the end of the wait, and no more', () => {
    expect(checkRetryAfter(input({ rows: [limited(0, 2000), row({ at: 1995 })] })).verdict).toBe('pass');
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
    expect(checkRetryAfter(input({ rows })).verdict).toBe('pass');
    expect(checkRetryAfter(input({ rows, scenario: world('expect: { retryAfter: { scope: key } }') })).verdict).toBe(
      'fail',
    );
  });
});
