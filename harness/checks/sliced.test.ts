import { describe, expect, it } from 'vitest';
import { input, outcome, T0, world } from '../../test/helpers/evidence.js';
import { oracleColumns, quotaOracle, replayQuotas } from './quota-oracle.js';
import { judgeChecks } from './run-checks.js';
import { driveSliced, finishSliced, type Sliced } from './sliced.js';

/** `work`, counting its slices. */
function* counted<T>(work: Sliced<T>, seen: { slices: number }): Sliced<T> {
  let step = work.next();
  while (!step.done) {
    seen.slices++;
    step = work.next(yield);
  }
  return step.value;
}

/**
 * Two providers (openai one request per 2 ms on one key, closed from 300 to 700 ms; anthropic
 * three per 10 ms on each of two keys), 6,000 requests three a millisecond, a quarter of them
 * free to go to either, with deadlines of 500 to 1,100 ms: thousands of replay steps.
 */
function oracleCase() {
  const base = world();
  const [openai, anthropic] = base.providers;
  const scenario = {
    ...base,
    providers: [
      { ...openai!, keys: [openai!.keys[0]!], quotas: [{ metric: 'requests' as const, limit: 1, per: 2 }] },
      { ...anthropic!, quotas: [{ metric: 'requests' as const, limit: 3, per: 10 }] },
    ],
  };
  const both = [
    { provider: openai!.id, model: openai!.models[0]! },
    { provider: anthropic!.id, model: anthropic!.models[0]! },
  ];
  const requests = Array.from({ length: 6000 }, (_, i) => ({
    sentAt: T0 + Math.floor(i / 3),
    latestAt: T0 + Math.floor(i / 3) + 500 + (i % 7) * 100,
    targets: i % 4 === 0 ? both : [both[0]!],
    tokensIn: 100,
    maxTokens: 0,
  }));
  const columns = oracleColumns(requests);
  const blocked = new Map([[openai!.id, [[T0 + 300, T0 + 700]] as Array<[number, number]>]]);
  return { scenario: scenario as never, requests, columns, blocked };
}

describe('the quota oracle in slices', () => {
  it('admits as many as the replay did at once before it was sliced (1969, pinned on main 4174b02)', async () => {
    const c = oracleCase();
    expect(quotaOracle(c.scenario, c.requests, c.blocked)).toBe(1969);
    const seen = { slices: 0 };
    const sliced = await driveSliced(counted(replayQuotas(c.scenario, c.columns, c.blocked), seen), {
      now: () => performance.now(),
      sliceMs: 0,
    });
    expect(sliced).toBe(1969);
    expect(seen.slices).toBeGreaterThan(1);
  });

  it('stops short with no bound when asked to at the end of a slice', () => {
    const c = oracleCase();
    expect(finishSliced(replayQuotas(c.scenario, c.columns, c.blocked), () => true)).toBeUndefined();
  });
});

describe('driveSliced', () => {
  it('gives the event loop a turn between slices, so a stop that arrives meanwhile is seen', async () => {
    let stopped = false;
    setTimeout(() => (stopped = true), 5);
    // Work that never ends by itself: only a stop seen between its slices ends it.
    function* endless(): Sliced<string> {
      for (;;) if ((yield) === true) return 'stopped short';
    }
    expect(await driveSliced(endless(), { now: () => performance.now(), giveUp: () => stopped, sliceMs: 1 })).toBe(
      'stopped short',
    );
  });
});

describe('judgeChecks', () => {
  it('marks every check after a stop as not judged, inconclusive and saying so, never a pass', () => {
    const run = { ...input({ outcomes: [outcome()] }), startedAt: T0 };
    let checks = 0;
    const results = finishSliced(
      judgeChecks(run, 'the run was stopped (SIGTERM) while it was judged'),
      () => ++checks >= 2,
    );
    // Asked after each check: the first two were judged, then the stop came.
    expect(results.slice(0, 2).map((r) => [r.id, r.details?.['notJudged']])).toEqual([
      ['no-429', undefined],
      ['retry-after', undefined],
    ]);
    const rest = results.slice(2);
    expect(rest.length).toBeGreaterThan(10);
    for (const r of rest)
      expect(r).toMatchObject({
        verdict: 'inconclusive',
        reason: 'not judged: the run was stopped (SIGTERM) while it was judged',
      });
  });
});
