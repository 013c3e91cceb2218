// The CI recipe of docs/ci.md, run here as written: the shell steps of docs/ci/github-actions.yml
// (the `uses:` steps are GitHub's: checkout, setup-node, test results, artifact upload) with
// GitHub's shell, its GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files and `if: always()`, in an empty
// project holding the tarball of `npm pack` where the workflow expects it (the package is not on
// the registry yet), against the conformance pack shipped in it with docs/ci/example-router.mjs as
// the router; then against a router that passes 429s on, and with a wrong --dir. The tarball is
// packed, and first installed into an empty project, once a day per content (packedPackage); each
// job's project starts from that install as from a runner's restored cache.
// The passing job plays a share of the shipped pack (THROTTLELAB_ARGS, the knob the recipe offers for
// `--only`), not all 17 scenarios: those took four minutes of wall clock and one of the suite's two
// workers. That the example router is the reference router for every scenario of the pack is
// test/e2e/example-router-config.test.ts; that the reference router passes the whole pack is
// test/integration/simulated-run.test.ts (simulated time).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtDist } from '../helpers/built-dist.js';
import { copyInstalledProject, packedPackage, userEnv, type PackedPackage } from '../helpers/packed-package.js';

const ROOT = join(import.meta.dirname, '..', '..');
const exec = promisify(execFile);
const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-ci-'));
// Three projects with node_modules each: removing them takes a while on a busy machine.
afterAll(() => rm(tmp, { recursive: true, force: true }), 180_000);

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
const workflow = parse(await readFile(join(ROOT, 'docs/ci/github-actions.yml'), 'utf8')) as {
  jobs: { throttlelab: { env: Record<string, string>; steps: Step[] } };
};
const job = workflow.jobs.throttlelab;

/** Runs the job's steps as a runner would; returns whether the job succeeded, its log and summary. */
async function runJob(project: string, env: Record<string, string>, stepTimeoutMs = 240_000) {
  const outputs: Record<string, Record<string, string>> = {};
  const summary = join(project, 'step-summary.md');
  await writeFile(summary, '');
  let failed = false;
  const log: string[] = [];
  for (const [i, step] of job.steps.entries()) {
    if (!step.run) continue;
    if (failed && step.if !== 'always()') continue;
    const outputFile = join(project, `output-${i}`);
    await writeFile(outputFile, '');
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [
        k,
        v.replace(
          /\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}/g,
          (_, id: string, key: string) => outputs[id]?.[key] ?? '',
        ),
      ]),
    );
    expect(JSON.stringify(stepEnv)).not.toContain('${{');
    let code = 0;
    try {
      const r = await exec('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
        cwd: project,
        env: { ...clean, ...job.env, ...env, ...stepEnv, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summary },
        timeout: stepTimeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      });
      log.push(r.stdout, r.stderr);
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      code = err.code;
      log.push(err.stdout, err.stderr);
    }
    if (step.id)
      outputs[step.id] = Object.fromEntries(
        (await readFile(outputFile, 'utf8'))
          .split('\n')
          .filter((l) => l.includes('='))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
    if (code !== 0) failed = true;
  }
  return { ok: !failed, log: log.join('\n'), summary: await readFile(summary, 'utf8'), outputs };
}

// The runner's environment, without what `npm test` adds (npm_config_*); npm takes the packages from
// its cache (as actions/setup-node's cache would), so the test needs no network.
const clean = { ...userEnv(), npm_config_prefer_offline: 'true' };

const version = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
let packed: PackedPackage;

beforeAll(async () => {
  // The tarball of the current files, packed once a day per content by packedPackage (without
  // scripts: `prepack` would build again), with an empty project that installed it.
  await builtDist();
  packed = await packedPackage();
}, 300_000);

/**
 * An empty project with the packed tarball where the workflow's THROTTLELAB_PACKAGE points, its
 * node_modules starting as hard links to the project packedPackage installed the same tarball
 * into (a runner's restored cache): the install step still runs as written, over a tree that
 * already holds the package, in seconds instead of half a minute. The install into an empty
 * folder is packedPackage's, once per content and day.
 */
async function project(name: string): Promise<string> {
  const dir = join(tmp, name);
  await copyInstalledProject(packed, dir);
  await copyFile(packed.tarball, join(dir, job.env.THROTTLELAB_PACKAGE!));
  return dir;
}

// The failing and bad-input jobs are about the job's outcome, not the pack: one small fixture scenario.
const SMALL = { THROTTLELAB_ARGS: `--dir ${join(ROOT, 'test/fixtures/compare')} --only compare-quota` };
const EXAMPLE_ROUTER = 'node node_modules/throttlelab/docs/ci/example-router.mjs';
// The two scenarios of the shipped pack that docs/ci.md names for the example router, picked by the
// recipe's own `--only` (a file name part): 12 fails a router that takes only each provider's first
// key, 10 one that waits 15 s for a first token instead of the scenario's tuning
// (THROTTLELAB_REFERENCE_CONFIG).
const PACK_SHARE = '-k';
const SHARE_FILES = ['10-keep-alive-hold.yaml', '12-keys-orgs-long-waits.yaml'];

describe('docs/ci/github-actions.yml, run locally', () => {
  it('names the files the upload and test-results steps publish', () => {
    const uses = job.steps.filter((s) => s.uses).map((s) => s.uses!.split('@')[0]);
    expect(uses).toEqual([
      'actions/checkout',
      'actions/setup-node',
      'mikepenz/action-junit-report',
      'actions/upload-artifact',
    ]);
    // Derived from REPORT_DIR, never a copy of it: changing the folder in one place moves every step.
    const fromEnv = (v: string | undefined) => v?.replace(/\$\{\{\s*env\.REPORT_DIR\s*\}\}/g, job.env.REPORT_DIR!);
    const junitPath = job.steps.find((s) => s.uses?.startsWith('mikepenz/'))!.with!.report_paths;
    const artifactPath = job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!.with!.path;
    expect([junitPath, artifactPath].every((p) => p?.includes('${{ env.REPORT_DIR }}'))).toBe(true);
    expect(fromEnv(junitPath)).toBe(`${job.env.REPORT_DIR}/junit.xml`);
    expect(fromEnv(artifactPath)).toBe(job.env.REPORT_DIR);
    expect(
      job.steps
        .filter((s) => s.uses && s.uses !== 'actions/checkout@v4' && !s.uses.startsWith('actions/setup-node'))
        .every((s) => s.if === 'always()'),
    ).toBe(true);
  });

  it('installs the package from the tarball npm pack makes, as the workflow names it before publication', () => {
    expect(job.env.THROTTLELAB_PACKAGE).toBe(`./throttlelab-${version}.tgz`);
    expect(job.env.THROTTLELAB_ARGS).toBe('');
  });

  it('runs, left as written, the whole pack with the command docs/ci.md shows: no --only, no --dir', async () => {
    // The conform step of the unedited job, with `npx` a stand-in that writes down its arguments.
    const dir = join(tmp, 'as-written');
    await mkdir(join(dir, 'bin'), { recursive: true });
    await writeFile(join(dir, 'bin/npx'), '#!/bin/sh\nprintf "%s\\n" "$@" > "$ARGV_FILE"\n', { mode: 0o755 });
    const step = job.steps.find((s) => s.id === 'conform')!;
    const outputFile = join(dir, 'output');
    await exec('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
      cwd: dir,
      env: {
        ...clean,
        ...job.env,
        PATH: `${join(dir, 'bin')}:${(clean as Record<string, string>).PATH}`,
        ARGV_FILE: join(dir, 'argv'),
        GITHUB_OUTPUT: outputFile,
      },
    });
    const argv = (await readFile(join(dir, 'argv'), 'utf8')).split('\n').slice(0, -1);
    const docs = await readFile(join(ROOT, 'docs/ci.md'), 'utf8');
    const shown = /^npx (throttlelab conform --router-cmd '([^']+)' --out (\S+))$/m.exec(docs)!;
    expect(shown, 'the conform line of docs/ci.md').not.toBeNull();
    expect(argv).toEqual(['throttlelab', 'conform', '--router-cmd', shown[2], '--out', shown[3]]);
    expect(argv[3]).toBe(job.env.ROUTER_CMD);
    expect(await readFile(outputFile, 'utf8')).toBe('code=0\n');
  });

  it('passes its share of the shipped pack with the example router: no check fails, junit.xml, summary and report kept', async () => {
    const dir = await project('passing');
    // Only the router and the share are the user's: everything else is the workflow's own, the pack included.
    const job = await runJob(dir, { ROUTER_CMD: EXAMPLE_ROUTER, THROTTLELAB_ARGS: `--only ${PACK_SHARE}` }, 300_000);
    expect(job.ok, job.log).toBe(true);
    const report = JSON.parse(await readFile(join(dir, 'reports/throttlelab/report.json'), 'utf8')) as {
      reports: Array<{
        scenario: { name: string };
        verdict: string;
        inconclusive?: string[];
        checks: Array<{ id: string; verdict: string; figure: string }>;
      }>;
    };
    const pack = (await readdir(join(ROOT, 'scenarios/conformance'))).filter(
      (f) => f.endsWith('.yaml') && f.includes(PACK_SHARE),
    );
    expect(pack.sort()).toEqual(SHARE_FILES);
    expect(report.reports).toHaveLength(pack.length);
    const failed = report.reports.flatMap((r) =>
      r.checks.filter((c) => c.verdict === 'fail').map((c) => `${r.scenario.name} ${c.id}: ${c.figure}`),
    );
    expect(failed).toEqual([]);
    // Exit 3 (INCONCLUSIVE) is what a loaded machine may give: the workflow warns and passes the job.
    const unsure = report.reports.filter((r) => r.verdict !== 'pass');
    expect(job.outputs.conform).toEqual({ code: unsure.length === 0 ? '0' : '3' });
    expect(job.log).toContain(
      unsure.length === 0
        ? '::notice title=throttlelab::every scenario passes'
        : '::warning title=throttlelab::inconclusive',
    );
    const junit = await readFile(join(dir, 'reports/throttlelab/junit.xml'), 'utf8');
    expect(junit.match(/<testsuite /g)).toHaveLength(pack.length);
    expect(junit).not.toContain('<failure');
    // One heading per scenario (✅, or ❔ for an inconclusive one), appended to the job summary.
    expect(job.summary.match(/^### (✅|❔ inconclusive:) conformance-/gm)).toHaveLength(pack.length);
    for (const f of ['report.json', 'index.html', 'summary.md'])
      expect(existsSync(join(dir, 'reports/throttlelab', f))).toBe(true);
  }, 400_000);

  // The passing job must pass outright (exit 0, not INCONCLUSIVE), so it runs alone; these two fail
  // by a count (429s handed on) or at once (bad input): they run together.
  it.concurrent(
    'fails the job when a check fails (exit 1), still publishing the summary and junit.xml',
    async () => {
      const dir = await project('failing');
      const job = await runJob(dir, {
        ...SMALL,
        ROUTER_CMD: `node --import ${join(ROOT, 'node_modules/tsx/dist/loader.mjs')} ${join(ROOT, 'test/fixtures/routers/serve.ts')} passes-429`,
      });
      expect(job.ok).toBe(false);
      expect(job.outputs.conform).toEqual({ code: '1' });
      expect(job.log).toContain('::error title=throttlelab::a check failed');
      expect(job.summary).toMatch(/^### ❌ compare-quota$/m);
      expect(await readFile(join(dir, 'reports/throttlelab/junit.xml'), 'utf8')).toMatch(/<failure[^>]*>/);
    },
    180_000,
  );

  it.concurrent(
    'fails the job on bad input (exit 2)',
    async () => {
      const dir = await project('bad-input');
      const job = await runJob(dir, { THROTTLELAB_ARGS: '--dir no-such-folder', ROUTER_CMD: 'true' });
      expect(job.ok).toBe(false);
      expect(job.outputs.conform).toEqual({ code: '2' });
      expect(job.log).toContain('::error title=throttlelab::bad input');
    },
    120_000,
  );
});
