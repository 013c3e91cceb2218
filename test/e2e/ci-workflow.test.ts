// The CI recipe of docs/ci.md, run here: the shell steps of docs/ci/github-actions.yml (the `uses:`
// steps are GitHub's: checkout, setup-node, test results, artifact upload) with GitHub's shell, its
// GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files and `if: always()`, against the reference router
// (docs/ci/example-router.mjs) and against a router that passes 429s on.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const exec = promisify(execFile);
const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-ci-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

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
async function runJob(project: string, env: Record<string, string>) {
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
        timeout: 150_000,
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

// The runner's environment, without what `npm test` adds (npm_config_*).
const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))) as Record<
  string,
  string
>;

async function project(name: string): Promise<string> {
  const dir = join(tmp, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), '{ "name": "my-router", "private": true, "type": "module" }\n');
  return dir;
}

// This checkout stands for the published package (installed as a link: quick, and what `npm test` just built).
const PACKAGE = {
  THROTTLELAB_PACKAGE: ROOT,
  THROTTLELAB_ARGS: `--dir ${join(ROOT, 'test/fixtures/compare')} --only compare-quota`,
};

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

  it('passes with the reference router: junit.xml, the summary appended, the report kept', async () => {
    const dir = await project('passing');
    const job = await runJob(dir, {
      ...PACKAGE,
      ROUTER_CMD: 'node node_modules/throttlelab/docs/ci/example-router.mjs',
    });
    expect(job.ok, job.log).toBe(true);
    expect(job.outputs.conform).toEqual({ code: '0' });
    expect(job.log).toContain('::notice title=throttlelab::every scenario passes');
    expect(job.summary).toMatch(/^### ✅ compare-quota$/m);
    const junit = await readFile(join(dir, 'reports/throttlelab/junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuite [^>]* failures="0"/);
    for (const f of ['report.json', 'index.html', 'summary.md'])
      expect(existsSync(join(dir, 'reports/throttlelab', f))).toBe(true);
  }, 180_000);

  // The passing job must pass outright (exit 0, not INCONCLUSIVE), so it runs alone; these two fail
  // by a count (429s handed on) or at once (bad input): they run together.
  it.concurrent(
    'fails the job when a check fails (exit 1), still publishing the summary and junit.xml',
    async () => {
      const dir = await project('failing');
      const job = await runJob(dir, {
        ...PACKAGE,
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
      const job = await runJob(dir, { ...PACKAGE, THROTTLELAB_ARGS: '--dir no-such-folder', ROUTER_CMD: 'true' });
      expect(job.ok).toBe(false);
      expect(job.outputs.conform).toEqual({ code: '2' });
      expect(job.log).toContain('::error title=throttlelab::bad input');
    },
    120_000,
  );
});
