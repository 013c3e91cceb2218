import { describe, expect, it } from 'vitest';
import { input, limited, outcome, row, stalls, T0, world } from '../../test/helpers/evidence.js';
import { scenarioFrom } from '../../test/helpers/scenario.js';
import { createRequestPlanner } from '../load/request-plan.js';
import { candidateProviders, checkGoodput } from './goodput.js';

const many = (n: number, p: Parameters<typeof outcome>[0] = {}) =>
  Array.from({ length: n }, (_, i) => outcome({ id: `r${i}`, at: i * 10, ...p }));

/** The attempts that served (or failed) each request, so the requests reached a provider. */
const reached = (outcomes: ReturnType<typeof outcome>[]) =>
  outcomes.map((o) => row({ at: o.sentAt - T0, correlationId: o.id, status: o.status === 200 ? 200 : 500 }));
const judge = (outcomes: ReturnType<typeof outcome>[]) => checkGoodput(input({ outcomes, rows: reached(outcomes) }));

describe('checkGoodput', () => {
  it('passes when the served share is above the minimum with confidence, or nothing went unserved', () => {
    const outcomes = [...many(995), ...many(5, { status: 503 }).map((o, i) => ({ ...o, id: `x${i}` }))];
    expect(judge(outcomes)).toMatchObject({
      verdict: 'pass',
      figure: '99.5 % [99.0–99.8] served (995 of 1000), needs ≥ 95.0 %',
    });
    expect(judge(many(20)).verdict).toBe('pass');
  });

  it('is MARGINAL (inconclusive), printing its interval, when the interval straddles the minimum', () => {
    const r = judge([...many(19), outcome({ id: 'x', status: 503 })]);
    expect(r).toMatchObject({
      verdict: 'inconclusive',
      figure: '95.0 % [80.4–98.9] served (19 of 20), needs ≥ 95.0 %: MARGINAL',
    });
    expect(r.reason).toMatch(/^MARGINAL: 95\.0 % \[80\.4–98\.9\] straddles the threshold/);
  });

  it('skips, naming the answers, when no request reached a provider', () => {
    const r = checkGoodput(input({ outcomes: many(10, { status: 500, error: 'no_route' }) }));
    expect(r).toMatchObject({ verdict: 'skip', figure: 'no request reached a provider (clients got 10×500 no_route)' });
  });

  it('fails when requests went unserved while a provider could serve them', () => {
    const r = judge([
      ...many(8),
      outcome({ id: 'x', status: 502, error: 'bad_gateway' }),
      outcome({ id: 'y', status: 502 }),
    ]);
    expect(r).toMatchObject({ verdict: 'fail', value: 0.8 });
    expect(r.evidence[0]).toMatchObject({ correlationId: 'x', detail: 'not served: status 502 (bad_gateway)' });
  });

  it('leaves out requests whose deadline fell while forced faults closed every provider', () => {
    // Both providers' keys announced forced waits covering the request's whole deadline (less the service time).
    const rows = [
      limited(0, 10_000, { faults: ['f'] }),
      limited(0, 10_000, { key: 'second', faults: ['f'] }),
      limited(0, 10_000, { provider: 'anthropic', vendor: 'anthropic', model: 'claude-haiku-4-5', faults: ['f'] }),
    ];
    const r = checkGoodput(input({ rows, outcomes: [outcome({ id: 'x', at: 100, status: 503, deadlineMs: 2000 })] }));
    expect(r).toMatchObject({ verdict: 'skip', details: expect.objectContaining({ excludedNoCapacity: 1 }) });
  });

  it('judges a pinned request by its own provider only', () => {
    const rows = [limited(0, 10_000, { faults: ['f'] }), limited(0, 10_000, { key: 'second', faults: ['f'] })];
    const pinned = outcome({ id: 'x', at: 100, model: 'openai/gpt-4o-mini', status: 503, deadlineMs: 2000 });
    expect(checkGoodput(input({ rows, outcomes: [pinned] })).details).toMatchObject({ excludedNoCapacity: 1 });
    expect(checkGoodput(input({ rows, outcomes: [{ ...pinned, model: 'auto' }] })).verdict).toBe('fail');
  });

  it('counts a blanket fault as no capacity', () => {
    const scenario = world(`faults:
  - { id: down-a, kind: status, at: 0s, for: 10s, match: { provider: openai }, status: 500 }
  - { id: down-b, kind: status, at: 0s, for: 10s, match: { provider: anthropic }, status: 529 }`);
    const outcomes = [outcome({ status: 503, deadlineMs: 2000 })];
    expect(checkGoodput(input({ scenario, outcomes, rows: reached(outcomes) })).verdict).toBe('skip');
  });
});

describe('candidateProviders', () => {
  it('reads provider/model, bare model names and anything else as all providers', () => {
    const s = world();
    expect(candidateProviders('anthropic/claude-haiku-4-5', s)).toEqual(['anthropic']);
    expect(candidateProviders('gpt-4o-mini', s)).toEqual(['openai']);
    expect(candidateProviders('auto', s)).toEqual(['openai', 'anthropic']);
  });
});

describe('checkGoodput judges from the weather, not from what the router sent', () => {
  it('does not leave out requests for quota the router spent itself, even when it ran dry', () => {
    const spent = (at: number, key = 'main', provider = 'openai') =>
      row({
        at,
        key,
        provider,
        quota: { requestsBefore: 1, requestsAfter: 0, tokensBefore: null, tokensAfter: null, emptyForMs: 10_000 },
      });
    const rows = [spent(0), spent(0, 'second'), spent(0, 'main', 'anthropic')];
    const r = checkGoodput(input({ rows, outcomes: [outcome({ id: 'x', at: 100, status: 503, deadlineMs: 2000 })] }));
    expect(r).toMatchObject({ verdict: 'fail', details: expect.objectContaining({ excludedNoCapacity: 0 }) });
  });

  it('does not count 429s the router ran into as no capacity: the quota oracle replays the real quotas', () => {
    const rows = [limited(0, 10_000), limited(0, 10_000, { key: 'second' })];
    const r = checkGoodput(input({ rows, outcomes: [outcome({ id: 'x', at: 100, status: 503, deadlineMs: 2000 })] }));
    expect(r.verdict).toBe('fail');
  });

  // The load plans every tenth request with a prompt past the providers' context windows.
  const invalidLoad = scenarioFrom(`version: 1
name: invalid
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-a }], options: { contextWindow: 1000 } }
load:
  duration: 1s
  rate: 40
  requests: { invalid: { share: 0.1, promptTokens: 2000 } }
`);
  const plan = createRequestPlanner(invalidLoad.load!, 7, 'r7');
  const planned = Array.from({ length: 40 }, (_, n) => plan(n));

  it('leaves out the requests the load made invalid: no router could serve them', () => {
    const outcomes = planned.map((p, n) =>
      outcome({ id: p.id, at: n * 25, ...(p.invalid ? { status: 400, error: 'invalid_request_error' } : {}) }),
    );
    const invalid = planned.filter((p) => p.invalid).length;
    expect(invalid).toBeGreaterThan(0);
    const r = checkGoodput({ ...input({ outcomes, rows: reached(outcomes), scenario: invalidLoad }), seed: 7 });
    expect(r).toMatchObject({ verdict: 'pass', details: expect.objectContaining({ excludedInvalid: invalid }) });
  });

  it('serves them when the run’s seed is unknown and so is the plan', () => {
    const outcomes = planned.map((p, n) => outcome({ id: p.id, at: n * 25, ...(p.invalid ? { status: 400 } : {}) }));
    expect(checkGoodput(input({ outcomes, rows: reached(outcomes), scenario: invalidLoad })).verdict).not.toBe('pass');
  });
});

// Seen on 12-keys-orgs-long-waits beside two CPU hogs: 81 of 901 requests unserved (client
// timeouts, 503 "no capacity before the deadline") while the harness's loop was behind for most of
// their lives.
describe('goodput under a stalled loop', () => {
  // 900 served, 100 unserved 3 s requests (90 % served: a FAIL on a calm loop), each answered 503
  // inside its deadline: its life spans 2.9 s from its send (0–990 ms).
  const outcomes = [
    ...many(900, { deadlineMs: 3000 }),
    ...many(100, { status: 503, deadlineMs: 3000 }).map((o, i) => ({ ...o, id: `x${i}`, endAt: o.sentAt + 2900 })),
  ];
  const rows = reached(outcomes);

  it('is INCONCLUSIVE when the unserved requests lived through stalls of a tenth of their deadline', () => {
    // The loop behind 1.5 s in each unserved request's life (they all span 1–2.9 s).
    const r = checkGoodput({ ...input({ outcomes, rows }), loopBehindMs: stalls([1000, 2500]) });
    expect(r.verdict, r.figure).toBe('inconclusive');
    expect(r.reason).toMatch(/^harness overloaded: 100 of the 100 unserved requests lived through loop stalls/);
  });

  it('counts the stalled among all the unserved, never more stalled than unserved, when the quotas allowed fewer', () => {
    // The quotas allowed about 975 of the 1000, 75-odd more than were served; all 100 unserved were stalled.
    const [openai] = world('faults: []').providers;
    const scenario = {
      ...world(),
      providers: [
        { ...openai!, keys: [openai!.keys[0]!], quotas: [{ metric: 'requests' as const, limit: 975, per: 3_600_000 }] },
      ],
    };
    const r = checkGoodput({ ...input({ outcomes, rows, scenario }), loopBehindMs: stalls([1000, 2500]) });
    expect(r.details).toMatchObject({ unservedThroughStalls: 100 });
    expect(r.details!.servableByQuota).toBeLessThan(990);
    expect(r.reason).toMatch(/^harness overloaded: 100 of the 100 unserved requests lived through loop stalls/);
  });

  it('still FAILs on a calm loop, or when too few of the unserved were stalled to change the verdict', () => {
    expect(checkGoodput({ ...input({ outcomes, rows }), loopBehindMs: stalls([1000, 1100]) }).verdict).toBe('fail');
    expect(checkGoodput(input({ outcomes, rows })).verdict).toBe('fail');
    // Only the last 10 unserved were stalled (their lives ran on to 3.8 s; the others ended by 1.9 s).
    const early = outcomes.map((o, i) => (i >= 900 && i < 990 ? { ...o, endAt: o.sentAt + 1000 } : o));
    expect(
      checkGoodput({ ...input({ outcomes: early, rows: reached(early) }), loopBehindMs: stalls([2000, 3500]) }).verdict,
    ).toBe('fail');
  });
});

describe('goodput under a starved router process', () => {
  const outcomes = [
    ...many(900, { deadlineMs: 3000 }),
    ...many(100, { status: 503, deadlineMs: 3000 }).map((o, i) => ({ ...o, id: `x${i}`, endAt: o.sentAt + 2900 })),
  ];
  const rows = reached(outcomes);

  it("is INCONCLUSIVE when the router's run-queue delay in the unserved requests' lives was a tenth of their deadline", () => {
    const r = checkGoodput({ ...input({ outcomes, rows }), routerWaitMs: stalls([1000, 1400]) });
    expect(r.verdict, r.figure).toBe('inconclusive');
    expect(r.reason).toMatch(
      /^machine overloaded: 100 of the 100 unserved requests lived through loop stalls and router run-queue delay of a tenth/,
    );
    expect(r.details).toMatchObject({ unservedThroughStalls: 100 });
  });

  it('still FAILs when the router waited less than that', () => {
    const r = checkGoodput({ ...input({ outcomes, rows }), routerWaitMs: stalls([1000, 1200]) });
    expect(r.verdict).toBe('fail');
    expect(r.details).toMatchObject({ unservedThroughStalls: 0 });
  });

  // Seen on 05-hanging-provider through Portkey (no attempt timeout) on a busy machine: 40 requests
  // held by a hung provider until the client gave up 2 s past their 4 s deadline, the router
  // waiting ~470 ms for a CPU in each life. Deadline FAILed them; goodput must not excuse them.
  it('still FAILs requests the client gave up on, unless the starvation also covers how late they went', () => {
    const gaveUp = [
      ...many(900, { deadlineMs: 4000 }),
      ...many(100, { status: 0, error: 'client-timeout', deadlineMs: 4000 }).map((o, i) => ({
        ...o,
        id: `x${i}`,
        endAt: o.sentAt + 6000,
      })),
    ];
    const judge = (routerWaitMs: (from: number, to: number) => number) =>
      checkGoodput({ ...input({ outcomes: gaveUp, rows: reached(gaveUp) }), routerWaitMs });
    // 500 ms: a tenth of the deadline, but 2 s late.
    const r = judge(stalls([1000, 1500]));
    expect(r.verdict, r.figure).toBe('fail');
    expect(r.details).toMatchObject({ unservedThroughStalls: 0 });
    // 2 s of it: late by no more than the router was starved.
    const explained = judge(stalls([1000, 3000]));
    expect(explained.verdict, explained.figure).toBe('inconclusive');
    expect(explained.details).toMatchObject({ unservedThroughStalls: 100 });
  });
});
