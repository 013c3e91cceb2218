// `conform --jobs N`: scenarios side by side on the wall clock, each with its own simulator and
// router; one combined report in pack order, and the options that cannot work side by side refused.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const exec = promisify(execFile);
const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-jobs-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [join(ROOT, 'dist/bin/throttlelab.js'), ...args], {
      cwd: ROOT,
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

interface Combined {
  reports: Array<{ scenario: { name: string }; startedAt: string; durationMs: number; verdict: string }>;
}

describe('conform --jobs', () => {
  it('runs the scenarios side by side and reports them in pack order', async () => {
    const out = join(tmp, 'two');
    const r = await cli('conform', '--dir', 'test/fixtures/compare', '--jobs', '2', '--out', out, '--quiet');
    // The reference router passes both; a starved machine may make a check inconclusive, never fail.
    expect([0, 3], r.stdout + r.stderr).toContain(r.code);
    const combined = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Combined;
    expect(combined.reports.map((x) => x.scenario.name)).toEqual(['compare-quota', 'compare-steady']);
    // Side by side: the second started before the first ended (each load lasts 3 s).
    const [a, b] = combined.reports.map((x) => ({
      from: Date.parse(x.startedAt),
      to: Date.parse(x.startedAt) + x.durationMs,
    }));
    expect(b!.from).toBeLessThan(a!.to);
    expect(a!.from).toBeLessThan(b!.to);
    // Interleaved result lines say which scenario they are about.
    expect(r.stdout).toMatch(/^ {2}compare-quota: (PASS|INCONCLUSIVE) \(/m);
    expect(r.stdout).toMatch(/^ {2}compare-steady: (PASS|INCONCLUSIVE) \(/m);
    expect(r.stdout).toMatch(/^conformance: \d of 2 scenarios pass/m);
  }, 180_000);

  it.each([
    [['--time', 'simulated'], /simulated runs use the CPU/],
    [['--router-url', 'http://127.0.0.1:9/v1'], /one --router-url would serve several scenarios/],
    [['--sim-port', '45678'], /--sim-port fixes one simulator port/],
    [['--seeds', '1..2'], /--seeds runs them in worker processes/],
  ])('refuses --jobs 2 with %s: exit 2 and why', async (extra, why) => {
    const r = await cli('conform', '--dir', 'test/fixtures/compare', '--jobs', '2', '--out', join(tmp, 'no'), ...extra);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(why);
  });

  it('refuses a number of jobs out of range', async () => {
    const r = await cli('conform', '--jobs', '0');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('expected a number of jobs from 1 to 16');
  });
});
