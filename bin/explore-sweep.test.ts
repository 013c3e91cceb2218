import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aggregateRuns, type SeedRun } from '../harness/index.js';
import { choiceOf, type ExploreJob } from './explore-job.js';
import { sweep } from './explore-sweep.js';
import { keptRuns, writeSweep } from './commands/explore.js';
import type { Io } from './io.js';

/** An Io whose wall clock moves 4 s each time it is read, recording what goes to stderr. */
function io(over: Partial<Io> = {}) {
  let t = 0;
  const said: string[] = [];
  const value: Io = {
    out: () => {},
    err: (l) => said.push(l),
    status: (l) => l && said.push(`status: ${l}`),
    env: {},
    stop: new AbortController().signal,
    randomSeed: () => 1,
    isTTY: false,
    now: () => (t += 4000),
    ...over,
  };
  return { io: value, said };
}

const passing = (job: ExploreJob): Extract<SeedRun, { ok: true }> => ({
  file: job.file,
  seed: job.seed,
  wallMs: 1,
  ok: true,
  scenario: 's',
  verdict: 'pass',
  checks: [],
});

const options = {
  files: ['a.yaml'],
  seeds: [1, 2, 3, 4],
  router: { kind: 'reference', time: 'simulated' } as const,
  workers: 1,
  loadMs: new Map(),
  jobTimeoutMs: () => 10_000,
  spawn: () => ({ run: (job: ExploreJob) => Promise.resolve(passing(job)), kill: () => {} }),
};

describe('sweep', () => {
  it('prints a progress line with an ETA every few seconds outside a terminal', async () => {
    const { io: plain, said } = io();
    await sweep(options, plain);
    expect(said.length).toBeGreaterThan(0);
    expect(said.at(-1)).toMatch(/4 of 4 runs, 0 failed or broke/);
  });

  it('prints nothing with --quiet', async () => {
    const { io: quiet, said } = io({ quiet: true });
    await sweep(options, quiet);
    expect(said).toEqual([]);
  });
});

describe('--evidence of a sweep', () => {
  const runs: SeedRun[] = [
    passing({ file: 'a.yaml', seed: 1, router: options.router }),
    { ...passing({ file: 'a.yaml', seed: 2, router: options.router }), verdict: 'fail' },
    { file: 'a.yaml', seed: 3, wallMs: 2, ok: false, error: 'broke' },
  ];

  it('keeps every run (full), the runs that did not pass (summary), or none', async () => {
    expect(keptRuns(runs, 'full').map((r) => r.seed)).toEqual([1, 2, 3]);
    expect(keptRuns(runs, 'summary').map((r) => r.seed)).toEqual([2, 3]);
    const dir = await mkdtemp(join(tmpdir(), 'throttlelab-sweep-'));
    try {
      const summary = aggregateRuns(['a.yaml'], [1, 2, 3], runs, () => 'replay');
      const to = { json: join(dir, 'explore.json'), html: join(dir, 'explore.html') };
      await writeSweep(summary, runs, 'r', to, 'none');
      const json = JSON.parse(await readFile(to.json, 'utf8')) as Record<string, unknown>;
      expect(json).toMatchObject({ evidence: 'none', verdict: 'fail' });
      expect(json).not.toHaveProperty('runs');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('choiceOf', () => {
  it("hands a fleet's --redis-url to each run of a sweep", () => {
    const redisUrl = 'redis://127.0.0.1:6390';
    expect(choiceOf({ kind: 'reference', time: 'wall', redisUrl })).toEqual({ time: 'wall', redisUrl });
    expect(choiceOf({ kind: 'command', command: 'node r.js', redisUrl })).toEqual({ routerCmd: 'node r.js', redisUrl });
    expect(choiceOf({ kind: 'reference', time: 'simulated' })).toEqual({ time: 'simulated' });
  });
});
