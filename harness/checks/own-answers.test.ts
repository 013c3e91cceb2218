import { describe, expect, it } from 'vitest';
import { input, limited, outcome, T0 } from '../../test/helpers/evidence.js';
import type { ErrorAnswer } from '../load/client-outcome.js';
import { checkOwnAnswers, retryAfterMs } from './own-answers.js';

const openAIBody = JSON.stringify({
  error: { message: 'No capacity.', type: 'service_unavailable', code: 'no_capacity' },
});
const answer = (p: Partial<ErrorAnswer> = {}): ErrorAnswer => ({
  path: '/v1/chat/completions',
  headers: { 'content-type': 'application/json', 'retry-after': '3' },
  body: openAIBody,
  ...p,
});
// Both providers' keys (openai main and second, anthropic main) announced a wait at 0 ms: 2 s, 3 s, 4 s.
const waits = [
  limited(0, 2000, { correlationId: 'c1' }),
  limited(0, 3000, { key: 'second', correlationId: 'c1' }),
  limited(0, 4000, { provider: 'anthropic', vendor: 'anthropic', model: 'claude-haiku-4-5', correlationId: 'c1' }),
];
const refused = (p: Parameters<typeof outcome>[0] = {}) =>
  outcome({ at: 10, firstByteAt: T0 + 10, endAt: T0 + 10, status: 503, usage: null, errorAnswer: answer(), ...p });

describe('checkOwnAnswers', () => {
  it('passes a 503 whose Retry-After covers the earliest announced wait, in the OpenAI shape', () => {
    const r = checkOwnAnswers(input({ rows: waits, outcomes: [outcome(), refused()] }));
    expect(r).toMatchObject({
      verdict: 'pass',
      figure: '1 error answer (1 for capacity, 1 503s during announced waits) right and parseable',
    });
  });

  it('fails a 503 without Retry-After while every provider waits, and a 500 for capacity', () => {
    const r = checkOwnAnswers(
      input({
        rows: waits,
        outcomes: [
          refused({ errorAnswer: answer({ headers: {} }) }),
          refused({ id: 'c2', status: 500, errorAnswer: answer() }),
        ],
      }),
    );
    expect(r).toMatchObject({ verdict: 'fail', details: { wrongStatus: 1, shortRetry: 1, misshapen: 0 } });
    expect(r.evidence[0]!.detail).toMatch(/503 while every provider .* without a Retry-After/);
    expect(r.evidence[1]!.detail).toMatch(/answered 500 for a capacity problem \(no attempt sent\)/);
  });

  it('does not take a 500 with no attempt for capacity while a provider was open (14, Portkey re-7)', () => {
    // "messages is not supported by google": no attempt sent, every provider open.
    const untranslated = refused({ id: 'x', status: 500, model: 'auto', errorAnswer: answer({ headers: {} }) });
    const r = checkOwnAnswers(input({ rows: [], outcomes: [untranslated] }));
    expect(r).toMatchObject({ verdict: 'pass', details: { wrongStatus: 0 } });
    expect(r.figure).toContain('0 for capacity');
    // The same answer while every provider waits is a capacity problem answered 500.
    expect(checkOwnAnswers(input({ rows: waits, outcomes: [untranslated] }))).toMatchObject({
      verdict: 'fail',
      details: { wrongStatus: 1 },
    });
    // A pinned request counts only its own provider: openai waiting, anthropic open is capacity.
    const pinned = { ...untranslated, model: 'openai/gpt-4o-mini' };
    const openaiOnly = waits.slice(0, 2);
    expect(checkOwnAnswers(input({ rows: openaiOnly, outcomes: [pinned] })).details).toMatchObject({ wrongStatus: 1 });
    expect(checkOwnAnswers(input({ rows: openaiOnly, outcomes: [untranslated] })).details).toMatchObject({
      wrongStatus: 0,
    });
  });

  it('does not take a 4xx the router gave without sending an attempt (a path it does not serve) for capacity', () => {
    const notServed = answer({ headers: { 'content-type': 'application/json' } });
    const r = checkOwnAnswers(input({ rows: [], outcomes: [refused({ status: 404, errorAnswer: notServed })] }));
    expect(r).toMatchObject({ verdict: 'pass', details: { wrongStatus: 0 } });
    expect(r.figure).toContain('0 for capacity');
  });

  it('fails a Retry-After shorter than the earliest wait (rounded down), not one a provider had ended', () => {
    const short = refused({ errorAnswer: answer({ headers: { 'retry-after': '1' } }) });
    expect(checkOwnAnswers(input({ rows: waits, outcomes: [short] })).verdict).toBe('fail');
    const rounded = refused({ errorAnswer: answer({ headers: { 'retry-after': '2' } }) });
    expect(checkOwnAnswers(input({ rows: waits, outcomes: [rounded] })).verdict).toBe('pass');
    // One key of openai has no wait: the router could still try it, so nothing is owed.
    expect(checkOwnAnswers(input({ rows: waits.slice(1), outcomes: [short] })).verdict).toBe('pass');
  });

  it('fails bodies no SDK parses: plain text, HTML, OpenAI shape on Messages, a missing code', () => {
    const r = checkOwnAnswers(
      input({
        outcomes: [
          refused({ errorAnswer: answer({ body: 'Internal Server Error' }) }),
          refused({ id: 'c2', errorAnswer: answer({ body: '<html><body>502</body></html>' }) }),
          refused({ id: 'c3', errorAnswer: answer({ path: '/v1/messages' }) }),
          refused({ id: 'c4', errorAnswer: answer({ body: '{"error":{"message":"x","type":"y"}}' }) }),
          refused({
            id: 'c5',
            errorAnswer: answer({
              path: '/v1/messages',
              body: '{"type":"error","error":{"type":"overloaded_error","message":"Try later."}}',
            }),
          }),
        ],
      }),
    );
    expect(r).toMatchObject({ verdict: 'fail', details: { misshapen: 4 } });
    expect(r.evidence.map((e) => e.correlationId)).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  it('skips, saying why, when the router answered no error or none was recorded whole', () => {
    expect(checkOwnAnswers(input({ outcomes: [outcome()] }))).toMatchObject({
      verdict: 'skip',
      figure: 'the router answered no error of its own',
    });
    expect(checkOwnAnswers(input({ outcomes: [refused({ errorAnswer: undefined })] })).figure).toBe(
      '1 error answer but none recorded whole (status, headers and body)',
    );
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('3', 0)).toBe(3000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(5000);
    expect(retryAfterMs('soon', 0)).toBeNull();
    expect(retryAfterMs(undefined, 0)).toBeNull();
  });
});
