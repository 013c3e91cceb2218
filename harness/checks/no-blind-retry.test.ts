import { describe, expect, it } from 'vitest';
import { input, limited, row, T0 } from '../../test/helpers/evidence.js';
import { checkNoBlindRetry } from './no-blind-retry.js';

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
});
