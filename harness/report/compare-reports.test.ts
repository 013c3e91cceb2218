import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../checks/types.js';
import { compareReports, DEFAULT_TOLERANCE, VERDICT_RANK } from './compare-reports.js';
import { renderCompareHtml, renderCompareMarkdown, renderCompareTable } from './render-compare.js';
import type { Report } from './report.js';

function check(id: CheckResult['id'], verdict: string, value: number | null, unit: string): CheckResult {
  return {
    id,
    title: id,
    meaning: `what ${id} means`,
    verdict: verdict as CheckResult['verdict'],
    figure: `${id} figure ${value}`,
    value,
    unit,
    violations: verdict === 'fail' ? 1 : 0,
    evidence: [],
  };
}

function report(opts: {
  name?: string;
  verdict?: string;
  p99?: number;
  attempts?: number;
  checks?: CheckResult[];
}): Report {
  return {
    schema: 'throttlelab.report/v1',
    tool: { name: 'throttlelab', version: '0.1.0' },
    scenario: { name: opts.name ?? 'burst', file: 'burst.yaml', sha256: 'ab'.repeat(32) },
    seed: 1,
    router: 'a router',
    verdict: (opts.verdict ?? 'pass') as Report['verdict'],
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 5000,
    load: {
      mode: 'open',
      durationMs: 5000,
      rate: 20,
      deadlineMs: 3000,
      sent: 100,
      dropped: 0,
      interrupted: false,
      streams: 25,
      achievedRate: 20,
      byStatus: { '200': 100 },
    },
    latency: {
      answered: { count: 100, p50: 50, p90: 80, p99: opts.p99 ?? 120, max: 200 },
      ttft: { count: 0, p50: null, p90: null, p99: null, max: null },
    },
    checks: opts.checks ?? [
      check('no-429', 'pass', 0, 'requests'),
      check('amplification', 'pass', 1.1, 'attempts per request'),
      check('failover-latency', 'pass', 200, 'ms (p99 added)'),
    ],
    series: {
      latency: { boundsMs: [], counts: [] },
      failoverAddedMs: [],
      perSecond: [],
      providers: [
        {
          id: 'p',
          lanes: ['main · m'],
          attempts: [],
          windows: [],
          totals: { attempts: opts.attempts ?? 110, byStatus: {} },
        },
      ],
    },
  };
}

describe('compareReports', () => {
  it('ranks verdicts fail < inconclusive < skip < pass', () => {
    const order = ['fail', 'inconclusive', 'skip', 'pass'].map((v) => VERDICT_RANK[v]!);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(new Set(order).size).toBe(4);
  });

  it('says same for the same report', () => {
    const c = compareReports([report({})], [report({})]);
    expect(c.worse).toBe(false);
    expect(c.verdict).toBe('same');
    expect(renderCompareTable(c)).toMatch(/compare: SAME: nothing got worse or better$/);
  });

  it('finds a check whose verdict fell, even pass → inconclusive, and names it', () => {
    const after = report({
      verdict: 'fail',
      checks: [
        check('no-429', 'fail', 12, 'requests'),
        check('amplification', 'pass', 1.1, 'attempts per request'),
        check('failover-latency', 'inconclusive', 200, 'ms (p99 added)'),
      ],
    });
    const c = compareReports([report({})], [after]);
    expect(c.worse).toBe(true);
    const s = c.scenarios[0]!;
    expect(s.checks.filter((k) => k.worse).map((k) => k.id)).toEqual(['no-429', 'failover-latency']);
    const table = renderCompareTable(c);
    expect(table).toMatch(/^ {2}no-429 +requests +PASS 0 +FAIL 12 +\+12 +WORSE$/m);
    expect(table).toMatch(/^WORSE burst: PASS → FAIL/m);
    expect(table).toMatch(/compare: WORSE: worse in 1 of 1 scenario: burst \(no-429, failover-latency\)$/);
    expect(renderCompareMarkdown(c)).toContain('| no-429 | requests | PASS 0 | FAIL 12 | +12 | WORSE |');
    expect(renderCompareHtml(c)).toContain('<tr class="worse"><td><code>no-429</code></td>');
  });

  it('gates counts and ratios on the tolerance, and times only when asked', () => {
    // 110 → 120 attempts per 100 requests: +9% is within 10%, +18% (130) is not.
    expect(compareReports([report({})], [report({ attempts: 120 })]).worse).toBe(false);
    const more = compareReports([report({})], [report({ attempts: 130 })]);
    expect(more.worse).toBe(true);
    expect(more.scenarios[0]!.figures.find((f) => f.name === 'attempts per request')!.worse).toBe(true);
    expect(compareReports([report({})], [report({ attempts: 130 })], { ...DEFAULT_TOLERANCE, percent: 25 }).worse).toBe(
      false,
    );
    // p99 120 → 400 ms: shown, not gated by default; gated with a latency tolerance.
    const slower = compareReports([report({})], [report({ p99: 400 })]);
    expect(slower.worse).toBe(false);
    expect(renderCompareTable(slower)).toMatch(/latency p99 +ms +120 ms +400 ms +\+280 ms +\(not gated\)/);
    expect(
      compareReports([report({})], [report({ p99: 400 })], { ...DEFAULT_TOLERANCE, latencyPercent: 20 }).worse,
    ).toBe(true);
    // Within the 50 ms slack: 120 → 160 ms is +33% but only 40 ms.
    expect(
      compareReports([report({})], [report({ p99: 160 })], { ...DEFAULT_TOLERANCE, latencyPercent: 20 }).worse,
    ).toBe(false);
  });

  it('calls a better run better, a missing scenario worse and a new one not worse', () => {
    const improved = compareReports(
      [report({ verdict: 'fail', checks: [check('no-429', 'fail', 5, 'requests')] })],
      [report({ checks: [check('no-429', 'pass', 0, 'requests')] })],
    );
    expect(improved.worse).toBe(false);
    expect(improved.verdict).toBe('better');
    expect(renderCompareTable(improved)).toMatch(/no-429 +requests +FAIL 5 +PASS 0 +−5 +better/);
    expect(renderCompareTable(improved)).toMatch(
      /^compare: BETTER: nothing got worse; better in 1 of 1 scenario: burst \(no-429\)$/m,
    );
    expect(compareReports([report({}), report({ name: 'other' })], [report({})]).worse).toBe(true);
    expect(compareReports([report({})], [report({}), report({ name: 'other' })]).worse).toBe(false);
  });

  it('calls a move to or from SKIP a coverage change, not worse, and lists it', () => {
    // The naive router → the reference router: checks it never triggered now skip; amplification +8 %.
    const c = compareReports(
      [
        report({
          checks: [
            check('no-429', 'pass', 0, 'requests'),
            check('amplification', 'pass', 1, 'attempts per request'),
            check('retry-after', 'skip', null, 'requests'),
          ],
        }),
      ],
      [
        report({
          checks: [
            check('no-429', 'skip', null, 'requests'),
            check('amplification', 'pass', 1.08, 'attempts per request'),
            check('retry-after', 'pass', 0, 'requests'),
          ],
        }),
      ],
    );
    expect(c.worse).toBe(false);
    expect(c.verdict).toBe('same');
    expect(c.scenarios[0]!.checks.map((k) => [k.id, k.coverage, k.worse])).toEqual([
      ['no-429', true, false],
      ['amplification', false, false],
      ['retry-after', true, false],
    ]);
    const table = renderCompareTable(c);
    expect(table).toMatch(/^ {2}no-429 +requests +PASS 0 +SKIP +coverage$/m);
    expect(table).toMatch(/^ {2}amplification +attempts per request +PASS 1 +PASS 1\.08 +\+0\.08$/m);
    expect(table).toMatch(
      /^coverage changed \(not worse\) for 2 checks: burst\/no-429 PASS → SKIP, burst\/retry-after SKIP → PASS$/m,
    );
    expect(table).not.toMatch(/WORSE/);
  });

  it('calls SKIP → FAIL worse and a check missing afterwards a coverage change', () => {
    const skipped = report({ checks: [check('no-429', 'skip', null, 'requests')] });
    expect(
      compareReports([skipped], [report({ verdict: 'fail', checks: [check('no-429', 'fail', 3, 'requests')] })])
        .verdict,
    ).toBe('worse');
    const gone = compareReports([report({})], [report({ checks: [check('no-429', 'pass', 0, 'requests')] })]);
    expect(gone.worse).toBe(false);
    expect(gone.scenarios[0]!.checks.filter((k) => k.coverage).map((k) => k.id)).toEqual([
      'amplification',
      'failover-latency',
    ]);
  });

  it('says mixed when one check got better and another worse, and gates it', () => {
    const c = compareReports(
      [
        report({
          verdict: 'fail',
          checks: [check('no-429', 'fail', 5, 'requests'), check('goodput', 'pass', 0.99, 'share')],
        }),
      ],
      [
        report({
          verdict: 'fail',
          checks: [check('no-429', 'pass', 0, 'requests'), check('goodput', 'fail', 0.5, 'share')],
        }),
      ],
    );
    expect(c.verdict).toBe('mixed');
    expect(c.worse).toBe(true);
    expect(renderCompareTable(c)).toMatch(
      /^compare: MIXED: worse in 1 of 1 scenario: burst \(goodput\); better in 1 of 1 scenario: burst \(no-429\)$/m,
    );
    expect(renderCompareMarkdown(c)).toMatch(/^## throttlelab: ❌ mixed$/m);
  });
});
