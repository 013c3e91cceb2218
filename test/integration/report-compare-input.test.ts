import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { overallVerdict, runChecks } from '../../harness/checks/run-checks.js';
import { buildReport } from '../../harness/report/build-report.js';
import { cli } from '../helpers/cli.js';
import { input, outcome, row, T0, world } from '../helpers/evidence.js';

const dir = await mkdtemp(join(tmpdir(), 'tl-compare-input-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

function aReport() {
  const scenario = world(`load: { mode: open, duration: 2s, rate: 2, requests: { deadline: 3s } }`);
  const rows = [row({ seq: 0, at: 0, correlationId: 'r-0' })];
  const outcomes = [outcome({ id: 'r-0', at: 0 })];
  const checks = runChecks(input({ rows, outcomes, scenario }));
  const report = buildReport({
    ...{ scenario, scenarioFile: 'synthetic.yaml', scenarioSha256: 'ab'.repeat(32), seed: 7, router: 'r' },
    ...{ startedAt: T0, endedAt: T0 + 2500, loadStartedAt: T0, loadEndedAt: T0 + 2000, dropped: 0 },
    ...{ interrupted: false, outcomes, rows, checks, verdict: overallVerdict(checks) },
  });
  return JSON.parse(JSON.stringify(report)) as typeof report;
}

describe('report --compare given a hand-edited report.json', () => {
  it('refuses a negative count of requests sent with exit 2 rather than printing −0.0 %', async () => {
    const before = join(dir, 'before.json');
    const after = join(dir, 'after.json');
    await writeFile(before, JSON.stringify(aReport()));
    // 1e999 is Infinity to JSON.parse; -1e308 a finite number no count can be.
    await writeFile(after, JSON.stringify(aReport()).replace(/"sent":\d+/, '"sent":-1e308'));
    const r = await cli(['report', '--compare', before, after, '--out', dir]);
    expect(r.code).toBe(2);
    expect(r.err.join('\n')).toContain(`HARNESS_REPORT_INVALID: Failed to read ${after}: load.sent: Too small`);
    expect(r.out.join('\n')).not.toContain('%');
  });
});
