import { describe, expect, it } from 'vitest';
import { input, limited, outcome, row, world } from '../../test/helpers/evidence.js';
import { checkNoNeedlessError } from './no-needless-error.js';

/** Both keys of openai told to wait 10 s at 0. */
const openaiClosed = () => [limited(0, 10_000), limited(0, 10_000, { key: 'second' })];

describe('checkNoNeedlessError', () => {
  it('fails a 503 answered while another provider the request may use had capacity', () => {
    const r = checkNoNeedlessError(
      input({ rows: openaiClosed(), outcomes: [outcome({ id: 'x', at: 100, status: 503, error: 'no_capacity' })] }),
    );
    expect(r).toMatchObject({ verdict: 'fail', violations: 1 });
    expect(r.evidence[0]).toMatchObject({ correlationId: 'x', provider: 'anthropic' });
    expect(r.evidence[0]!.detail).toMatch(
      /^answered 503 \(no_capacity\) after 100 ms, while anthropic had capacity when it came/,
    );
  });

  it('fails a relayed 429 on a pinned provider whose wait ended well before the deadline', () => {
    const r = checkNoNeedlessError(
      input({
        rows: [limited(0, 500), limited(0, 500, { key: 'second' })],
        outcomes: [outcome({ id: 'x', at: 0, model: 'openai/gpt-4o-mini', status: 429, deadlineMs: 5000 })],
      }),
    );
    expect(r).toMatchObject({ verdict: 'fail' });
    expect(r.evidence[0]!.detail).toMatch(/openai had capacity 500 ms after it came/);
  });

  it('passes an error whose every allowed provider stayed closed until too late for its deadline', () => {
    const pinned = outcome({ id: 'x', at: 100, model: 'openai/gpt-4o-mini', status: 503, deadlineMs: 2000 });
    expect(checkNoNeedlessError(input({ rows: openaiClosed(), outcomes: [pinned] }))).toMatchObject({
      verdict: 'pass',
      figure: '0 of 1 error answered while capacity existed (deadline less 1000 ms)',
    });
  });

  it('does not count capacity that other requests used up (the quota spent) as spare', () => {
    // Anthropic's quota was spent at 50 ms and stays so for 10 s; openai waits 10 s.
    const spent = row({
      at: 50,
      provider: 'anthropic',
      vendor: 'anthropic',
      model: 'claude-haiku-4-5',
      quota: { requestsBefore: 1, requestsAfter: 0, tokensBefore: null, tokensAfter: null, emptyForMs: 10_000 },
    });
    const early = row({ ...spent, at: 0, quota: { ...spent.quota, emptyForMs: 0 } });
    const r = checkNoNeedlessError(
      input({ rows: [...openaiClosed(), early, spent], outcomes: [outcome({ id: 'x', at: 10, status: 503 })] }),
    );
    expect(r.verdict).toBe('pass');
  });

  it('allows a hint-less fault the time a router may take to learn it is over', () => {
    const scenario = world(
      'faults:\n  - { id: down, kind: status, at: 0s, for: 1s, match: { provider: openai }, status: 503 }\n',
    );
    const pinned = outcome({ id: 'x', at: 100, model: 'openai/gpt-4o-mini', status: 503, deadlineMs: 5000 });
    expect(checkNoNeedlessError({ ...input({ outcomes: [pinned] }), scenario }).verdict).toBe('pass');
  });

  it('skips, saying why, when no request was answered with a 429 or a 5xx', () => {
    const r = checkNoNeedlessError(input({ outcomes: [outcome(), outcome({ id: 'y', status: 400 })] }));
    expect(r).toMatchObject({ verdict: 'skip', reason: 'no request was answered with a 429 or a 5xx' });
  });
});
