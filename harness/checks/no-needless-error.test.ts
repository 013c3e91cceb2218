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

  describe('on a machine starved before the errors came (the CI recipe at load 20: "3 of 119 … 70 more explained by starvation")', () => {
    // openai walled at 1400 ms. r7-10 (pinned) ran into the wall while the router sat in the run
    // queue: explained. Then, at 2000 ms, three requests shed at once (`router_overloaded`, the
    // router's queue full of requests the starved machine had slowed) while anthropic was open:
    // held for no time, no window's starvation could explain them, and they failed the run.
    const scenario = world(
      'faults:\n  - { id: wall, kind: status, at: 1400ms, match: { provider: openai }, status: 429, error: quota_exhausted }\n',
    );
    const pinned = outcome({ id: 'r7-10', model: 'openai/gpt-4o-mini', status: 429, endAt: T0 + 1543 });
    const shed = [0, 1, 2].map((i) =>
      outcome({
        id: `shed-${i}`,
        at: 2000 + i,
        status: 503,
        error: 'router_overloaded',
        endAt: T0 + 2000 + i,
        deadlineMs: 3000,
      }),
    );
    const base = { ...input({ outcomes: [pinned, ...shed] }), scenario };
    const starved = { routerWaitMs: stalls([100, 1410]), loopBehindMs: stalls([1410, 2000]) };

    it('is inconclusive, not a fail, when the starvation in the deadline before each shed request explains it', () => {
      // The router off the CPU 1310 ms and the harness's loop behind 590 ms: 1900 ms of the 3000 ms before.
      const r = checkNoNeedlessError({ ...base, ...starved });
      expect(r).toMatchObject({
        verdict: 'inconclusive',
        violations: 0,
        figure: '0 of 4 errors answered while capacity existed (deadline less 1000 ms), 4 more explained by starvation',
      });
      expect(r.evidence.find((e) => e.correlationId === 'shed-0')!.detail).toMatch(
        /^answered 503 \(router_overloaded\) after 0 ms, while anthropic had capacity when it came, until its deadline .*; the harness's loop was behind 590 ms and the router waited 1310 ms for a CPU in the 3000 ms before it came \(explained by starvation: inconclusive\)$/,
      );
    });

    it('still fails the shed requests on a calm machine, or when the starvation before them was short or long past', () => {
      expect(checkNoNeedlessError(base)).toMatchObject({ verdict: 'fail', violations: 4 });
      // 1310 ms of starvation in the 3000 ms before: less than half the deadline (r7-10 is still
      // explained by its window's).
      expect(checkNoNeedlessError({ ...base, routerWaitMs: stalls([100, 1410]) })).toMatchObject({
        verdict: 'fail',
        violations: 3,
      });
      // Starved more than a deadline before they came: the router had long caught up.
      const later = shed.map((o) => ({ ...o, sentAt: o.sentAt + 8000, endAt: o.endAt + 8000 }));
      const r = checkNoNeedlessError({ ...base, outcomes: [pinned, ...later], ...starved });
      expect(r).toMatchObject({ verdict: 'fail', violations: 3 });
    });

    it('still fails an error that a provider error was behind (passed on or given up after), however starved before', () => {
      // shed-0 went to anthropic first and the router passed on its 429 (the passes-429 router).
      const relayed = row({
        at: 2000,
        correlationId: 'shed-0',
        provider: 'anthropic',
        vendor: 'anthropic',
        model: 'claude-haiku-4-5',
        status: 429,
      });
      const r = checkNoNeedlessError({ ...base, rows: [relayed], ...starved });
      expect(r).toMatchObject({ verdict: 'fail', violations: 1 });
      expect(r.evidence.find((e) => e.correlationId === 'shed-0')!.detail).not.toMatch(/explained by starvation/);
    });
  });

  it('skips, saying why, when no request was answered with a 429 or a 5xx', () => {
    const r = checkNoNeedlessError(input({ outcomes: [outcome(), outcome({ id: 'y', status: 400 })] }));
    expect(r).toMatchObject({ verdict: 'skip', reason: 'no request was answered with a 429 or a 5xx' });
  });
});
