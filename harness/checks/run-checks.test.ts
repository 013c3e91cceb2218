import { describe, expect, it } from 'vitest';
import { input, limited, outcome, row, T0 } from '../../test/helpers/evidence.js';
import { discountHarnessLag, runChecks, runVerdict, type FaultCoverage } from './run-checks.js';
import type { CheckResult, HarnessLag } from './types.js';

const fault = (over: Partial<FaultCoverage> = {}): FaultCoverage => ({
  id: 'storm',
  kind: 'status',
  at: 2000,
  for: 5000,
  optional: false,
  matched: 12,
  ...over,
});

const result = (over: Partial<CheckResult>): CheckResult => ({
  id: 'retry-after',
  title: 't',
  meaning: 'm',
  verdict: 'pass',
  figure: 'f',
  value: 0,
  violations: 0,
  evidence: [],
  ...over,
});

const calm: HarnessLag = { loopP99Ms: 2, loopMaxMs: 5, sendP99Ms: 1, sendMaxMs: 3 };
const starved: HarnessLag = { loopP99Ms: 800, loopMaxMs: 2300, sendP99Ms: 120, sendMaxMs: 900 };

describe('runVerdict', () => {
  it('passes when checks pass and every fault matched attempts', () => {
    expect(runVerdict([result({})], [fault()])).toEqual({ verdict: 'pass', inconclusive: [] });
  });

  it('is inconclusive, naming the fault, when a fault matched no attempt (a slow router must not pass)', () => {
    const v = runVerdict([result({})], [fault({ matched: 0 })]);
    expect(v.verdict).toBe('inconclusive');
    expect(v.inconclusive).toEqual([
      'fault "storm" (status at 2 s for 5 s from the load\'s start) matched no attempt: what it tests went untested',
    ]);
    expect(runVerdict([result({})], [fault({ matched: 0, optional: true })]).verdict).toBe('pass');
  });

  it('fails whatever else happened when a check failed', () => {
    expect(runVerdict([result({ verdict: 'fail' })], [fault({ matched: 0 })]).verdict).toBe('fail');
  });

  it('is inconclusive when no check had anything to judge, or one could not decide', () => {
    expect(runVerdict([result({ verdict: 'skip' }), result({ id: 'goodput', verdict: 'skip' })])).toEqual({
      verdict: 'inconclusive',
      inconclusive: ['no check had anything to judge'],
    });
    const v = runVerdict([result({}), result({ id: 'goodput', verdict: 'inconclusive', reason: 'MARGINAL' })]);
    expect(v).toEqual({ verdict: 'inconclusive', inconclusive: ['goodput: MARGINAL'] });
  });
});

describe('discountHarnessLag', () => {
  const failed = result({ verdict: 'fail', timing: { toleranceMs: 10, worstMarginMs: 300 } });

  it('turns a timing failure the harness lag explains into INCONCLUSIVE, saying so', () => {
    const r = discountHarnessLag(failed, starved);
    expect(r.verdict).toBe('inconclusive');
    expect(r.reason).toMatch(/^harness overloaded: load generator lag p99 800 ms, above this check's 10 ms tolerance/);
  });

  it('keeps the failure when the harness was calm, or the violation is beyond the lag', () => {
    expect(discountHarnessLag(failed, calm).verdict).toBe('fail');
    expect(discountHarnessLag(failed, undefined).verdict).toBe('fail');
    const far = result({ verdict: 'fail', timing: { toleranceMs: 10, worstMarginMs: 9000 } });
    expect(discountHarnessLag(far, starved).verdict).toBe('fail');
    // Not a timing check: the lag says nothing about it.
    expect(discountHarnessLag(result({ verdict: 'fail' }), starved).verdict).toBe('fail');
  });

  // Seen on keys-orgs-long-waits with two CPU hogs: another request's attempt stamped 288 ms into a
  // 20 s wait, the loop's p99 117 ms but its longest stall 297 ms. Stamps come late during stalls.
  it("bounds another request's late-stamped attempt by the longest stall, not the p99; a broken router still fails", () => {
    const stalled: HarnessLag = { loopP99Ms: 117, loopMaxMs: 297, sendP99Ms: 192, sendMaxMs: 257 };
    const outcomes = [outcome({ id: 'a', at: 0, endAt: T0 + 3000 }), outcome({ id: 'b', at: 0, endAt: T0 + 3000 })];
    const judge = (rows: ReturnType<typeof row>[]) =>
      runChecks({ ...input({ rows, outcomes }), lag: stalled }).find((c) => c.id === 'retry-after')!;
    const inFlight = judge([limited(0, 20_000, { correlationId: 'a' }), row({ at: 293, correlationId: 'b' })]);
    expect(inFlight.verdict, inFlight.figure).toBe('inconclusive');
    expect(inFlight.reason).toMatch(/^harness overloaded: load generator lag max 297 ms/);
    // A router that sends into the wait long after any stall could explain: FAIL, lag or not.
    const broken = judge([limited(0, 20_000, { correlationId: 'a' }), row({ at: 1505, correlationId: 'b' })]);
    expect(broken.verdict).toBe('fail');
    // The request that drew the hint coming back early is never the lag's doing.
    const again = judge([limited(0, 20_000, { correlationId: 'a' }), row({ at: 293, correlationId: 'a' })]);
    expect(again.verdict).toBe('fail');
    // A calm run keeps the p99 rule (nothing to discount).
    const calmRun = runChecks({
      ...input({ rows: [limited(0, 20_000, { correlationId: 'a' }), row({ at: 293, correlationId: 'b' })], outcomes }),
      lag: calm,
    }).find((c) => c.id === 'retry-after')!;
    expect(calmRun.verdict).toBe('fail');
  });

  it('is applied by runChecks to the timing checks (retry-after declares its tolerance)', () => {
    const rows = [limited(0, 2000, { correlationId: 'a' }), row({ at: 1000, correlationId: 'a' })];
    const outcomes = [outcome({ id: 'a', at: 0, endAt: T0 + 3000 })];
    const calmRun = runChecks({ ...input({ rows, outcomes }), lag: calm }).find((c) => c.id === 'retry-after')!;
    expect(calmRun.verdict).toBe('fail');
    const busy = runChecks({ ...input({ rows, outcomes }), lag: { ...starved, loopP99Ms: 1200 } }).find(
      (c) => c.id === 'retry-after',
    )!;
    expect(busy.verdict).toBe('inconclusive');
    expect(busy.reason).toContain('harness overloaded: load generator lag p99 1200 ms');
  });
});

describe('retry-after under a lagging harness', () => {
  it('makes another request arriving just past the in-flight grace INCONCLUSIVE, never the same request', () => {
    const outcomes = [outcome({ id: 'open', at: 0, endAt: T0 + 5000 })];
    const lag: HarnessLag = { loopP99Ms: 150, loopMaxMs: 280, sendP99Ms: 210, sendMaxMs: 220 };
    const other = [limited(0, 2000, { correlationId: 'a' }), row({ at: 230, correlationId: 'b' })];
    const verdict = (rows: ReturnType<typeof row>[]) =>
      runChecks({ ...input({ rows, outcomes }), lag }).find((c) => c.id === 'retry-after')!.verdict;
    expect(verdict(other)).toBe('inconclusive');
    expect(verdict([limited(0, 2000, { correlationId: 'a' }), row({ at: 230, correlationId: 'a' })])).toBe('fail');
    expect(verdict([limited(0, 2000, { correlationId: 'a' }), row({ at: 900, correlationId: 'b' })])).toBe('fail');
  });
});

describe('runChecks judging time', () => {
  it('gives each check the time its judging took on the injected clock, and none without one', () => {
    const scenario = input({}).scenario;
    const only = {
      ...scenario,
      expect: { ...scenario.expect, checks: ['no-429' as const, 'goodput' as const], skip: [] },
    };
    const readings = [10, 12.5, 12.5, 20.25];
    const timed = runChecks({ ...input({ scenario: only }), judgeClock: () => readings.shift()! });
    expect(timed.map((c) => [c.id, c.judgedMs])).toEqual([
      ['no-429', 2.5],
      ['goodput', 7.75],
    ]);
    expect(runChecks(input({ scenario: only })).every((c) => c.judgedMs === undefined)).toBe(true);
  });
});
