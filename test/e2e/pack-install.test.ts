// The package as a user gets it: `npm pack`, installed into an empty project from the tarball,
// then the CLI through npx (validate, conform against a router command, report) and the three
// library entry points imported with their types (TypeScript, NodeNext) and from plain Node.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtDist } from '../helpers/built-dist.js';
import { copyInstalledProject, packedPackage, userEnv } from '../helpers/packed-package.js';

const ROOT = join(import.meta.dirname, '..', '..');
const exec = promisify(execFile);
const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-pack-'));
const project = join(tmp, 'project');
afterAll(() => rm(tmp, { recursive: true, force: true }));

const env = userEnv();

async function sh(
  file: string,
  args: string[],
  cwd: string,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(file, args, {
      cwd,
      env: { ...env, ...extraEnv },
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

let files: string[] = [];

beforeAll(async () => {
  // The tarball of the current files (dist, scenarios, docs, manifests), packed and installed into an
  // empty project once a day per content by packedPackage (without scripts: `prepack` would build
  // again, checked below); this file works in a copy of that project.
  await builtDist();
  const packed = await packedPackage();
  files = packed.files;
  await copyInstalledProject(packed, project);
}, 240_000);

describe.concurrent('the npm package, installed from its tarball into an empty project', () => {
  it('holds the built code, scenarios, docs, README and LICENSE only, and builds on prepack', async () => {
    const outside = files.filter(
      (f) => !/^(dist|scenarios|docs)\//.test(f) && !['README.md', 'LICENSE', 'package.json'].includes(f),
    );
    expect(outside).toEqual([]);
    expect(
      files.filter((f) => /\.test\.|^dist\/test\/|\.map$/.test(f) || (/\.ts$/.test(f) && !/\.d\.ts$/.test(f))),
    ).toEqual([]);
    for (const f of ['dist/bin/throttlelab.js', 'dist/simulator/index.d.ts', 'dist/router/index.d.ts'])
      expect(files).toContain(f);
    expect(files).toContain('dist/harness/index.d.ts');
    expect(files).toContain('scenarios/conformance/01-steady-state.yaml');
    expect(files).toContain('docs/ci/example-router.mjs');
    // The README's screenshots stay in the repository: half a megabyte nobody's install needs.
    expect(files.filter((f) => f.startsWith('docs/img/'))).toEqual([]);
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.private).toBeUndefined();
    expect((pkg.scripts as Record<string, string>).prepack).toBe('npm run build');
  });

  it('runs validate, conform (the built-in pack, a router command) and report through npx', async () => {
    const validate = await sh(
      'npx',
      ['throttlelab', 'validate', 'node_modules/throttlelab/scenarios/quickstart.yaml'],
      project,
    );
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/quickstart\.yaml: ok/);

    // No --dir: the pack is found inside the installed package, whatever the current folder.
    const conform = await sh(
      'npx',
      [
        'throttlelab',
        'conform',
        '--only',
        '01-steady',
        '--router-cmd',
        'node node_modules/throttlelab/docs/ci/example-router.mjs',
        '--out',
        'reports/ci',
      ],
      project,
    );
    expect(conform.code, conform.stdout + conform.stderr).toBe(0);
    expect(conform.stdout).toMatch(/conformance: 1 of 1 scenarios pass against command: node /);
    // Progress goes to stderr, as plain lines when it is not a terminal (CI logs): no carriage returns, no escapes.
    expect(conform.stderr).toMatch(/^ +1\/1 conformance-steady-state: +\d+ s \/ 6 s +\d+ req\/s +in flight \d+/m);
    expect(conform.stderr).not.toMatch(/[\r\x1b]/);
    expect(conform.stdout).not.toMatch(/req\/s/);
    const report = JSON.parse(await readFile(join(project, 'reports/ci/report.json'), 'utf8')) as {
      scenario: { file: string };
    };
    expect(report.scenario.file).toContain(join('node_modules', 'throttlelab', 'scenarios', 'conformance'));

    const again = await sh(
      'npx',
      ['throttlelab', 'report', 'reports/ci/report.json', '--out', 'reports/again'],
      project,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/verdict: PASS/);
    for (const f of ['index.html', 'junit.xml', 'summary.md', 'report.json'])
      expect(existsSync(join(project, f === 'report.json' ? 'reports/ci' : 'reports/again', f))).toBe(true);
  }, 180_000);

  it('serves simulate and router from the package, for a bounded duration', async () => {
    const sim = await sh(
      'npx',
      ['throttlelab', 'simulate', 'node_modules/throttlelab/scenarios/quickstart.yaml', '--duration', '300ms'],
      project,
    );
    expect(sim.code, sim.stderr).toBe(0);
    expect(sim.stdout).toMatch(/stopped after/);
    const keys = {
      THROTTLELAB_OPENAI_API_KEY: 'sk-a',
      THROTTLELAB_ANTHROPIC_API_KEY: 'sk-b',
      THROTTLELAB_GEMINI_API_KEY: 'sk-c',
    };
    const router = await sh(
      'npx',
      [
        'throttlelab',
        'router',
        '--config',
        'node_modules/throttlelab/docs/router.example.yaml',
        '--port',
        '0',
        '--duration',
        '300ms',
      ],
      project,
      keys,
    );
    expect(router.code, router.stderr).toBe(0);
    expect(router.stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
  }, 120_000);

  it('imports throttlelab/simulator, /router and /harness with types (TypeScript) and from plain Node', async () => {
    await writeFile(
      join(project, 'check.mts'),
      [
        "import { createSimulator, parseDuration, type Simulator } from 'throttlelab/simulator';",
        "import { Router, RouterConfigSchema, type RouterConfig } from 'throttlelab/router';",
        "import { renderVerdictTable, reportsOf, type Report } from 'throttlelab/harness';",
        "const ms: number | undefined = parseDuration('5s');",
        'const config: RouterConfig = RouterConfigSchema.parse({ version: 1, providers: [] });',
        'const table: (r: Report) => string = renderVerdictTable;',
        'const reports: Report[] = reportsOf({});',
        '// @ts-expect-error a number is not a string: the types are real, not any',
        "const wrong: string = parseDuration('5s');",
        'export { ms, config, table, reports, wrong, createSimulator, Router };',
        'export type { Simulator };',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          // The project has no dev dependencies of its own: Node's types from this repository's.
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: ['check.mts'],
      }),
    );
    const tsc = await sh(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      project,
    );
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);

    await writeFile(
      join(project, 'plain.mjs'),
      [
        "const sim = await import('throttlelab/simulator');",
        "const router = await import('throttlelab/router');",
        "const harness = await import('throttlelab/harness');",
        'console.log(typeof sim.createSimulator, typeof router.Router, typeof harness.runScenario);',
        '',
      ].join('\n'),
    );
    const plain = await sh(process.execPath, ['plain.mjs'], project);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.trim()).toBe('function function function');

    // CommonJS hosts (Node ≥ 20.19 `require()`s ESM without a top-level await): the router once
    // awaited its hasher's wasm at the top level and could not be required.
    await writeFile(
      join(project, 'plain.cjs'),
      [
        "const sim = require('throttlelab/simulator');",
        "const router = require('throttlelab/router');",
        "const harness = require('throttlelab/harness');",
        'console.log(typeof sim.createSimulator, typeof router.Router, typeof harness.runScenario);',
        '',
      ].join('\n'),
    );
    const required = await sh(process.execPath, ['plain.cjs'], project);
    expect(required.code, required.stderr).toBe(0);
    expect(required.stdout.trim()).toBe('function function function');
  }, 120_000);
});
