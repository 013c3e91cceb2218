import { describe, expect, it } from 'vitest';
import { input, outcome, row, T0, world } from '../../test/helpers/evidence.js';
import { overallVerdict, runChecks } from '../checks/run-checks.js';
import { buildReport } from './build-report.js';
import type { Report } from './report.js';
import { reportsOf } from './write-report.js';

function aReport(): Report {
  const scenario = world(`load: { mode: open, duration: 2s, rate: 2, requests: { deadline: 3s } }`);
  const rows = [row({ seq: 0, at: 0, correlationId: 'r-0' })];
  const outcomes = [outcome({ id: 'r-0', at: 0 })];
  const checks = runChecks(input({ rows, outcomes, scenario }));
  const report = buildReport({
    scenario,
    scenarioFile: 'synthetic.yaml',
    scenarioSha256: 'ab'.repeat(32),
    seed: 7,
    router: 'the test router',
    startedAt: T0,
    endedAt: T0 + 2500,
    loadStartedAt: T0,
    loadEndedAt: T0 + 2000,
    dropped: 0,
    interrupted: false,
    outcomes,
    rows,
    checks,
    verdict: overallVerdict(checks),
  });
  return JSON.parse(JSON.stringify(report)) as Report;
}

describe('reportsOf given a crafted report.json', () => {
  it('reads back what throttlelab wrote', () => {
    const r = aReport();
    expect(reportsOf(r)).toEqual([r]);
    expect(reportsOf({ schema: 'throttlelab.reports/v1', reports: [r, r] })).toHaveLength(2);
  });

  it("reads back a day's report: every failed attempt and wait of a provider (29 003 in the day) is drawn", () => {
    const r = aReport();
    r.series.providers[0]!.attempts = Array.from({ length: 29_003 }, (_, i) => [i, 0, 429]);
    r.series.providers[0]!.windows = Array.from({ length: 29_002 }, (_, i) => [i, 0, 1000]);
    expect(reportsOf(r)).toEqual([r]);
  });

  it('refuses two million timeline points at once instead of drawing them for ever', () => {
    const r = aReport();
    r.series.providers[0]!.attempts = Array.from({ length: 2_000_000 }, (_, i) => [i / 1000, 0, 200]);
    const started = performance.now();
    expect(() => reportsOf(r, 'big.json')).toThrow(
      'Failed to read big.json: series.providers[0].attempts: Too big: expected array to have <=200000 items. It is incomplete, or was not written by throttlelab; write it again with throttlelab run.',
    );
    // Generous on a busy machine: the defect never finished.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('names the first missing field of an incomplete report, and how many more there are', () => {
    const r = aReport() as Partial<Report>;
    delete r.checks;
    delete r.latency;
    expect(() => reportsOf(r, 'cut.json')).toThrow(
      'Failed to read cut.json: latency: required field is missing (expected object) (and 1 more problem).',
    );
  });

  it('refuses a verdict or a number that would be written into the HTML unescaped', () => {
    const r = aReport() as unknown as Record<string, unknown>;
    r.verdict = '"><script>alert(1)</script>';
    expect(() => reportsOf(r, 'x.json')).toThrow(/Failed to read x\.json: verdict: Invalid option/);
    const s = aReport() as unknown as { seed: unknown };
    s.seed = '<img src=x onerror=alert(1)>';
    expect(() => reportsOf(s, 'y.json')).toThrow(/Failed to read y\.json: seed: expected number, received string/);
  });

  it('refuses counts a comparison would divide by: negative, fractional, not a number or endless', () => {
    const cases: Array<[string, (r: Report) => void, RegExp]> = [
      ['sent.json', (r) => (r.load.sent = -1e308), /load\.sent: Too small: expected number to be >=0/],
      ['nan.json', (r) => (r.latency.answered.count = Number.NaN), /latency\.answered\.count: /],
      ['half.json', (r) => (r.load.byStatus['200'] = 1.5), /load\.byStatus\.200: expected int, received number/],
      [
        'endless.json',
        (r) => (r.series.providers[0]!.totals.attempts = Infinity),
        /series\.providers\[0\]\.totals\.attempts: /,
      ],
    ];
    for (const [file, spoil, message] of cases) {
      const r = aReport();
      spoil(r);
      expect(() => reportsOf(r, file), file).toThrow(message);
    }
  });
});
