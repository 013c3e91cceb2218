import { describe, expect, it } from 'vitest';
import { clientStreamFailure } from './client-stream-failure.js';

describe('clientStreamFailure', () => {
  it.each([
    [
      {
        message: 'The server is overloaded or not ready yet. org-main',
        type: 'service_unavailable_error',
        code: 'server_is_overloaded',
      },
      'provider_overloaded',
    ],
    [{ message: 'Overloaded', type: 'overloaded_error', code: 'overloaded_error' }, 'provider_overloaded'],
    [
      {
        message: 'Rate limit reached for gpt-4o-mini in organization org-main',
        type: 'requests',
        code: 'rate_limit_exceeded',
      },
      'provider_rate_limited',
    ],
    [
      {
        message: 'The server had an error while processing your request. req_0123456789abcdef0',
        type: 'server_error',
        code: null,
      },
      'provider_error',
    ],
    [{ message: 'Internal error encountered.', type: 'INTERNAL', code: 'INTERNAL' }, 'provider_error'],
  ])('words a provider error event in its own words, keeping its kind (%#)', (failure, code) => {
    const out = clientStreamFailure(failure);
    expect(out.code).toBe(code);
    expect(out.message).not.toContain(failure.message);
    expect(out.message).not.toMatch(/org-|req_/);
  });

  it('keeps its own codes and words them itself, even when a provider sent the same code', () => {
    expect(clientStreamFailure({ message: 'x', type: 'timeout', code: 'deadline_exceeded' })).toEqual({
      type: 'timeout',
      code: 'deadline_exceeded',
      message: 'The request deadline passed during the stream.',
    });
    const forged = clientStreamFailure({
      message: 'org-main says: truncated',
      type: 'upstream_error',
      code: 'stream_truncated',
    });
    expect(forged.message).toBe('The provider closed the stream before it finished.');
  });
});
