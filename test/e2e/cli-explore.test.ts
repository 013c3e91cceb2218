import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const exec = promisify(execFile);
const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-explore-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [join(ROOT, 'dist/bin/throttlelab.js'), ...args], {
      cwd: ROOT,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('throttlelab explore', () => {
  it('runs a scenario at each seed on two worker processes, tallies every check and writes JSON and HTML', async () => {
    const out = join(tmp, 'sweep');
    const r = await cli(
      'explore',
      'scenarios/conformance/01-steady-state.yaml',
      '--seeds',
      '1,2',
      '--workers',
      '2',
      '--out',
      out,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'throttlelab explore: 1 scenario × seeds 1,2 (2 runs) against the reference router (in process, simulated time), 2 workers',
    );
    expect(r.stdout).toMatch(/^ {4}goodput +PASS 2 {2}FAIL 0 {2}INCONCL 0 {2}SKIP 0 +pass 100 % \[34.2 %, 100 %\]$/m);
    expect(r.stdout).toContain('explore: PASS: 2 of 2 runs pass (0 fail, 0 inconclusive, 0 error)');
    const json = JSON.parse(await readFile(join(out, 'explore.json'), 'utf8')) as {
      seeds: number[];
      verdict: string;
      runs: Array<{ seed: number; verdict: string }>;
    };
    expect(json.seeds).toEqual([1, 2]);
    expect(json.runs.map((x) => [x.seed, x.verdict])).toEqual([
      [1, 'pass'],
      [2, 'pass'],
    ]);
    expect(await readFile(join(out, 'explore.html'), 'utf8')).toContain('<h1>throttlelab explore: PASS</h1>');
  }, 60_000);

  it('takes --quiet and --evidence as run does: no progress on stderr, explore.json as asked', async () => {
    const out = join(tmp, 'quiet');
    const r = await cli(
      'explore',
      'scenarios/conformance/01-steady-state.yaml',
      '--seeds',
      '1',
      '--workers',
      '1',
      '--quiet',
      '--evidence',
      'summary',
      '--out',
      out,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const json = JSON.parse(await readFile(join(out, 'explore.json'), 'utf8')) as { evidence: string; runs: unknown[] };
    expect(json).toMatchObject({ evidence: 'summary', runs: [] });
  }, 60_000);

  it('lets conform --seeds keep no runs in explore.json with --evidence none', async () => {
    const out = join(tmp, 'conform-seeds');
    const r = await cli(
      'conform',
      '--only',
      '01-steady',
      '--time',
      'simulated',
      '--seeds',
      '1..2',
      '--quiet',
      '--evidence',
      'none',
      '--out',
      out,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const json = JSON.parse(await readFile(join(out, 'explore.json'), 'utf8')) as Record<string, unknown>;
    expect(json).toMatchObject({ evidence: 'none', verdict: 'pass' });
    expect(json).not.toHaveProperty('runs');
  }, 90_000);

  it('refuses a seed range that runs backwards before running anything, exit 2', async () => {
    const r = await cli('explore', '--seeds', '9..3');
    expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({
      code: 2,
      stderr: 'throttlelab: CLI_USAGE: --seeds: 9..3 runs backwards; write 3..9.',
    });
  }, 30_000);

  it('refuses a scenario file that does not exist, exit 2', async () => {
    const r = await cli('explore', 'test/fixtures/scenarios/does-not-exist.yaml');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('CLI_NO_SCENARIOS');
  }, 30_000);

  it('refuses conform with both --seed and --seeds, exit 2', async () => {
    const r = await cli('conform', '--time', 'simulated', '--seed', '1', '--seeds', '1..2', '--out', join(tmp, 'c'));
    expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({
      code: 2,
      stderr: 'throttlelab: CLI_USAGE: --seed and --seeds: give one or the other.',
    });
  }, 30_000);

  it('draws the weather from the seed and replays it with --weather random', async () => {
    const out = join(tmp, 'weather');
    const r = await cli(
      'explore',
      'test/fixtures/weather/calm-three.yaml',
      '--seeds',
      '2',
      '--weather',
      'random',
      '--out',
      out,
    );
    const json = JSON.parse(await readFile(join(out, 'explore.json'), 'utf8')) as {
      runs: Array<{ seed: number; verdict: string }>;
    };
    expect(json.runs.map((x) => x.seed)).toEqual([2]);
    // Whatever the verdict, a run that did not pass is listed with a replay line that draws the same weather.
    if (json.runs[0]!.verdict !== 'pass')
      expect(r.stdout).toContain(
        'throttlelab explore test/fixtures/weather/calm-three.yaml --seeds 2 --weather random',
      );
    else expect(r.code, r.stderr).toBe(0);
  }, 60_000);

  it('refuses --save beside a router command, and a weather it does not know, exit 2', async () => {
    const save = await cli('explore', '--router-cmd', 'node x.js', '--save', join(tmp, 'r'));
    expect({ code: save.code, stderr: save.stderr.trim() }).toEqual({
      code: 2,
      stderr: 'throttlelab: CLI_USAGE: --save shrinks failures of the reference router only (in simulated time).',
    });
    const weather = await cli('explore', '--weather', 'sunny');
    expect(weather.code).toBe(2);
    expect(weather.stderr).toContain('expected fixed or random');
  }, 30_000);
});
