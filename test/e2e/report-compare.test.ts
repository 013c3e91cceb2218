// `throttlelab report --compare`, the gate for a router upgrade: the reference router against a
// broken one is worse (exit 1, naming what got worse), the other way round better (exit 0); the
// same router twice with the same seed is the same.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const exec = promisify(execFile);
const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-compare-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [join(ROOT, 'dist/bin/throttlelab.js'), ...args], {
      cwd: ROOT,
      timeout: 90_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

// The primary's quota runs out after five requests: a router must fail over, never pass the 429 on.
const QUOTA = 'test/fixtures/compare/compare-quota.yaml';
// No fault at all: every figure of the reference router is the same run after run (times aside, not gated).
const STEADY = 'test/fixtures/compare/compare-steady.yaml';

beforeAll(async () => {
  // One at a time: four runs side by side would load a busy machine further.
  const runs = [];
  for (const args of [
    ['run', QUOTA, '--seed', '11', '--out', join(tmp, 'reference')],
    [
      'run',
      QUOTA,
      '--seed',
      '11',
      '--router-cmd',
      'node --import tsx test/fixtures/routers/serve.ts passes-429',
      '--out',
      join(tmp, 'broken'),
    ],
    ['run', STEADY, '--seed', '7', '--out', join(tmp, 'steady')],
    ['run', STEADY, '--seed', '7', '--out', join(tmp, 'steady-again')],
  ])
    runs.push(await cli(...args));
  // The broken router fails (no-429), whatever a loaded machine does to the timing checks.
  expect(runs[1]!.code, runs[1]!.stdout).toBe(1);
  for (const dir of ['reference', 'broken', 'steady', 'steady-again'])
    expect(existsSync(join(tmp, dir, 'report.json')), runs.map((r) => r.stderr).join('\n')).toBe(true);
}, 240_000);

describe('throttlelab report --compare', () => {
  it('reference router → a router that passes 429s on: prints what got worse and exits 1', async () => {
    const r = await cli(
      'report',
      '--compare',
      join(tmp, 'reference/report.json'),
      join(tmp, 'broken/report.json'),
      '--out',
      join(tmp, 'cmp'),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^WORSE compare-quota: \w+ → FAIL \(the reference router → command: node /m);
    // The reference router may never meet a provider 429 here (it reads the primary's remaining 0 and
    // fails over first): no-429 then has nothing to judge and SKIPs; the broken router FAILs it either way.
    expect(r.stdout).toMatch(/^ {2}no-429 +requests +(PASS|SKIP) 0 +FAIL [1-9]\d* +(\+[1-9]\d* +)?WORSE$/m);
    expect(r.stdout).toMatch(/^compare: (WORSE|MIXED): worse in 1 of 1 scenario: compare-quota \(no-429[,)]/m);
    const md = await readFile(join(tmp, 'cmp/compare.md'), 'utf8');
    expect(md).toMatch(/^\| no-429 \| requests \| (PASS|SKIP) 0 \| FAIL \d+ \| (\+\d+)? ?\| WORSE \|$/m);
    expect(existsSync(join(tmp, 'cmp/compare.html'))).toBe(true);
  });

  it('a router that passes 429s on → the reference router: better, exit 0', async () => {
    const r = await cli('report', '--compare', join(tmp, 'broken/report.json'), join(tmp, 'reference/report.json'));
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^compare: BETTER: nothing got worse; better in 1 of 1 scenario: compare-quota /m);
  });

  it('the same router twice with the same seed: same, exit 0, nothing written without --out', async () => {
    const r = await cli('report', '--compare', join(tmp, 'steady/report.json'), join(tmp, 'steady-again/report.json'));
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^compare-steady: PASS → PASS \(the reference router\)$/m);
    expect(r.stdout).toMatch(/^ {2}attempts per request +per request +1(\.00)? +1(\.00)? +=/m);
    expect(r.stdout).toMatch(/^compare: SAME: nothing got worse or better$/m);
    expect(existsSync(join(tmp, 'steady-again/compare.md'))).toBe(false);
    expect(existsSync(join(tmp, 'steady-again/compare.html'))).toBe(false);
  });

  it('refuses one report or three with --compare (exit 2)', async () => {
    const r = await cli('report', '--compare', join(tmp, 'reference/report.json'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--compare: expected two reports \(before and after\), got 1/);
  });
});
