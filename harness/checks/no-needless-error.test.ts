import { describe, expect, it } from 'vitest';
import { input, limited, outcome, row, stalls, T0, world } from '../../test/helpers/evidence.js';
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

  it('does not count a sliver of capacity shorter than the service time before a fault began', () => {
    // openai pinned; a fault closes it 1400 ms into the run: the request came at 1000 ms, so 400 ms
    // of capacity were left in its life, less than the 1000 ms service time.
    const scenario = world(
      'faults:\n  - { id: wall, kind: status, at: 1400ms, match: { provider: openai }, status: 429, error: quota_exhausted }\n',
    );
    const pinned = outcome({ id: 'x', at: 1000, model: 'openai/gpt-4o-mini', status: 429, endAt: T0 + 2500 });
    expect(checkNoNeedlessError({ ...input({ outcomes: [pinned] }), scenario }).verdict).toBe('pass');
    const early = outcome({ id: 'y', at: 0, model: 'openai/gpt-4o-mini', status: 429, endAt: T0 + 1500 });
    const r = checkNoNeedlessError({ ...input({ outcomes: [early] }), scenario });
    expect(r.verdict).toBe('fail');
    expect(r.evidence[0]!.detail).toMatch(/openai had capacity when it came, for 1400 ms/);
  });

  it('is inconclusive when the router waited for a CPU through the capacity window (07, Portkey r7-10)', () => {
    // The pinned request came at 0; openai was open until its wall at 1400 ms, but the router's
    // process sat in the run queue from 100 ms to 1410 ms, and its one attempt left after the wall.
    const scenario = world(
      'faults:\n  - { id: wall, kind: status, at: 1400ms, match: { provider: openai }, status: 429, error: quota_exhausted }\n',
    );
    const pinned = outcome({ id: 'r7-10', model: 'openai/gpt-4o-mini', status: 429, endAt: T0 + 1543 });
    const base = { ...input({ outcomes: [pinned] }), scenario };
    expect(checkNoNeedlessError(base).verdict).toBe('fail');
    const r = checkNoNeedlessError({ ...base, routerWaitMs: stalls([100, 1410]) });
    expect(r).toMatchObject({ verdict: 'inconclusive', violations: 0 });
    expect(r.reason).toMatch(/^timing: machine overloaded/);
    expect(r.evidence[0]!.detail).toMatch(
      /capacity when it came, for 1400 ms .*the router waited 1300 ms for a CPU in that window \(explained by starvation: inconclusive\)$/,
    );
  });

  it('still fails when the starvation leaves the service time of the window, or came after the answer', () => {
    const scenario = world(
      'faults:\n  - { id: wall, kind: status, at: 3000ms, match: { provider: openai }, status: 429, error: quota_exhausted }\n',
    );
    const pinned = outcome({ id: 'x', model: 'openai/gpt-4o-mini', status: 429, endAt: T0 + 3100 });
    const base = { ...input({ outcomes: [pinned] }), scenario };
    // 3000 ms open, 1500 ms starved: 1500 ms were left, more than the 1000 ms service time.
    expect(checkNoNeedlessError({ ...base, routerWaitMs: stalls([0, 1500]) }).verdict).toBe('fail');
    // Answered at 200 ms: the stalls after the answer held nothing up.
    const quick = { ...pinned, endAt: T0 + 200 };
    const r = checkNoNeedlessError({ ...base, outcomes: [quick], routerWaitMs: stalls([300, 3000]) });
    expect(r.verdict).toBe('fail');
  });

  it('skips, saying why, when no request was answered with a 429 or a 5xx', () => {
    const r = checkNoNeedlessError(input({ outcomes: [outcome(), outcome({ id: 'y', status: 400 })] }));
    expect(r).toMatchObject({ verdict: 'skip', reason: 'no request was answered with a 429 or a 5xx' });
  });
});
