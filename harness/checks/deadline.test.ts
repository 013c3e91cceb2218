import { describe, expect, it } from 'vitest';
import { input, outcome, stalls, T0 } from '../../test/helpers/evidence.js';
import { checkDeadline } from './deadline.js';
import { runChecks } from './run-checks.js';
import type { HarnessLag } from './types.js';

// Seen on keys-orgs-long-waits beside two CPU hogs: requests answered ~2 s past a 3 s deadline while
// the loop's longest single stall was 0.8 s (its p99 far less): the stalls added up along each
// request's way through client, router and simulator, all on one loop.
const starvedPercentiles: HarnessLag = { loopP99Ms: 310, loopMaxMs: 800, sendP99Ms: 250, sendMaxMs: 700 };
const late = [
  outcome({ id: 'a', at: 0, deadlineMs: 3000, endAt: T0 + 5000 }),
  outcome({ id: 'b', at: 500, deadlineMs: 3000, endAt: T0 + 5300 }),
  outcome({ id: 'c', at: 1000, deadlineMs: 3000, endAt: T0 + 1200 }),
];

describe('deadline under a lagging harness', () => {
  it('is INCONCLUSIVE when the loop was behind, during each late request, by more than it was late', () => {
    // Behind 2.4 s in all during a's and b's lives, in stalls of at most 0.8 s each.
    const behind = stalls([500, 1300], [2000, 2800], [3500, 4300]);
    const r = checkDeadline({ ...input({ outcomes: late }), lag: starvedPercentiles, loopBehindMs: behind });
    expect(r.verdict, r.figure).toBe('inconclusive');
    expect(r.violations).toBe(2);
    expect(r.reason).toMatch(
      /^harness overloaded: its event loop .* was behind by up to 2400 ms during the late requests/,
    );
    expect(r.evidence.map((e) => e.detail)).toEqual([
      "answered 2000 ms after its 3000 ms deadline; the harness's loop was behind 2400 ms meanwhile",
      "answered 1800 ms after its 3000 ms deadline; the harness's loop was behind 2400 ms meanwhile",
    ]);
    // The percentiles alone would have blamed the router: 2 s late, the longest stall 0.8 s.
    const judged = runChecks({ ...input({ outcomes: late }), lag: starvedPercentiles }).find(
      (c) => c.id === 'deadline',
    )!;
    expect(judged.verdict).toBe('fail');
  });

  it('still FAILs a genuinely late router: a calm loop, or one late request beyond its stalls', () => {
    const calm = checkDeadline({ ...input({ outcomes: late }), loopBehindMs: stalls([100, 120]) });
    expect(calm.verdict).toBe('fail');
    // b's life (0.5–5.3 s) saw 2.4 s of stalls, a's (0–3.9 s, 0.9 s late) none beyond 0.3 s.
    const mixed = [
      outcome({ id: 'a', at: 0, deadlineMs: 3000, endAt: T0 + 3900 }),
      outcome({ id: 'b', at: 500, deadlineMs: 3000, endAt: T0 + 5300 }),
    ];
    const r = checkDeadline({ ...input({ outcomes: mixed }), loopBehindMs: stalls([3600, 3900], [4000, 6000]) });
    expect(r.verdict).toBe('fail');
    expect(r.evidence[0]!.detail).toBe(
      "answered 900 ms after its 3000 ms deadline; the harness's loop was behind 300 ms meanwhile",
    );
    // And runChecks does not discount it either: 0.9 s past the tolerance is beyond the p99.
    expect(
      runChecks({
        ...input({ outcomes: mixed }),
        lag: starvedPercentiles,
        loopBehindMs: stalls([3600, 3900], [4000, 6000]),
      }).find((c) => c.id === 'deadline')!.verdict,
    ).toBe('fail');
  });

  it('never excuses a request that failed locally, whatever the loop did', () => {
    const local = outcome({ id: 'x', at: 0, status: 0, error: 'network', endAt: T0 + 5 });
    const r = checkDeadline({ ...input({ outcomes: [local] }), loopBehindMs: stalls([0, 10_000]) });
    expect(r.verdict).toBe('fail');
    const gaveUp = outcome({ id: 'y', at: 0, status: 0, error: 'client-timeout', deadlineMs: 3000, endAt: T0 + 5000 });
    expect(checkDeadline({ ...input({ outcomes: [gaveUp] }), loopBehindMs: stalls([0, 4000]) }).verdict).toBe(
      'inconclusive',
    );
    expect(checkDeadline({ ...input({ outcomes: [gaveUp] }), loopBehindMs: stalls([0, 500]) }).verdict).toBe('fail');
  });
});

// A router the harness started is a process of its own: on a saturated machine it waits for a CPU
// (its run-queue delay, read from /proc) while the harness's loop may run on time.
describe('deadline under a starved router process', () => {
  it("is INCONCLUSIVE when the router's run-queue delay, with the loop's stalls, explains each late request", () => {
    const r = checkDeadline({
      ...input({ outcomes: late }),
      loopBehindMs: stalls([4000, 4300]),
      routerWaitMs: stalls([600, 1500], [2000, 3400]),
    });
    expect(r.verdict, r.figure).toBe('inconclusive');
    expect(r.reason).toBe(
      "machine overloaded: during the late requests the harness's event loop was behind by up to 300 ms and the router's process waited up to 2300 ms for a CPU (runnable, not scheduled), and every one of them was late by less than the two together during its life",
    );
    expect(r.evidence.map((e) => e.detail)).toEqual([
      "answered 2000 ms after its 3000 ms deadline; the harness's loop was behind 300 ms and the router waited 2300 ms for a CPU meanwhile",
      "answered 1800 ms after its 3000 ms deadline; the harness's loop was behind 300 ms and the router waited 2300 ms for a CPU meanwhile",
    ]);
    // The loop alone explains neither.
    expect(checkDeadline({ ...input({ outcomes: late }), loopBehindMs: stalls([4000, 4300]) }).verdict).toBe('fail');
  });

  it('still FAILs a request late beyond the starvation of its life, and one that failed locally', () => {
    const r = checkDeadline({ ...input({ outcomes: late }), routerWaitMs: stalls([600, 1500]) });
    expect(r.verdict).toBe('fail');
    expect(r.evidence[0]!.detail).toBe(
      'answered 2000 ms after its 3000 ms deadline; the router waited 900 ms for a CPU meanwhile',
    );
    const local = outcome({ id: 'x', at: 0, status: 0, error: 'network', endAt: T0 + 5 });
    expect(checkDeadline({ ...input({ outcomes: [local] }), routerWaitMs: stalls([0, 10_000]) }).verdict).toBe('fail');
  });
});
