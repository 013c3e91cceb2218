import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// `throttlelab router` is what people deploy: it must load the router and nothing else (no
// simulator, no harness, no other command), and no Redis client unless the config shares state.
// Its idle RSS against Portkey's is a benchmark figure (BENCHMARKS.md); the import graph is the
// thing a test can hold.

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** The project files and packages a CLI command imports, read through a module hook. */
async function importsOf(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  let stderr: string;
  try {
    ({ stderr } = await run(
      process.execPath,
      ['--import', join(ROOT, 'test/helpers/log-imports.mjs'), join(ROOT, 'dist/bin/throttlelab.js'), ...args],
      { cwd: ROOT, timeout: 30_000, env: { ...process.env, ...env } },
    ));
  } catch (e) {
    ({ stderr } = e as { stderr: string });
  }
  const files = [...stderr.matchAll(/^import: file:\/\/(.+)$/gm)].map((m) => m[1]!.slice(ROOT.length + 1));
  return [...new Set(files)];
}

const KEYS = {
  THROTTLELAB_OPENAI_API_KEY: 'sk-a',
  THROTTLELAB_ANTHROPIC_API_KEY: 'sk-b',
  THROTTLELAB_GEMINI_API_KEY: 'sk-c',
};

// Each test starts the built CLI once; a busy machine can take seconds to load it.
describe('the import graph of throttlelab router', { timeout: 60_000 }, () => {
  it('holds only the router, the CLI and the router command: no simulator, harness or Redis client', async () => {
    const files = await importsOf(
      ['router', '--config', 'docs/router.example.yaml', '--port', '0', '--duration', '200ms'],
      KEYS,
    );
    expect(files).toContain('dist/router/router.js');
    expect(files).toContain('dist/bin/commands/router.js');
    const outside = files.filter(
      (f) =>
        !f.startsWith('dist/router/') &&
        !f.startsWith('node_modules/') &&
        !['dist/bin/throttlelab.js', 'dist/bin/cli.js', 'dist/bin/commands/router.js'].includes(f) &&
        !/^dist\/bin\/(errors|exit-codes|printable|package-root)\.js$/.test(f),
    );
    expect(outside).toEqual([]);
    expect(files.filter((f) => f.startsWith('node_modules/ioredis/'))).toEqual([]);
  });

  it('is read truly: a command that needs the simulator shows it loaded', async () => {
    const files = await importsOf(['validate', 'scenarios/quickstart.yaml']);
    expect(files.some((f) => f.startsWith('dist/simulator/'))).toBe(true);
  });

  it('loads the simulator only to locate a wrong config (the cold path)', async () => {
    const files = await importsOf(['router', '--config', 'docs/router.example.yaml']);
    expect(files).toContain('dist/router/config/parse-config.js');
    expect(files.some((f) => f.startsWith('dist/simulator/'))).toBe(true);
  });
});

describe('the import graph of throttlelab validate', { timeout: 60_000 }, () => {
  it('answers a path that is missing without loading the harness or the simulator', async () => {
    const files = await importsOf(['validate', 'nope.yaml']);
    expect(files).toContain('dist/bin/commands/validate.js');
    expect(files.filter((f) => /^dist\/(harness|simulator|router)\//.test(f))).toEqual([]);
  });
});

describe('the import graph of throttlelab validate on a real file', { timeout: 60_000 }, () => {
  it('loads the scenario parser (yaml, zod) and no engine, transport, tokenizer, report or Redis client', async () => {
    const { stderr } = await run(
      process.execPath,
      [
        '--import',
        join(ROOT, 'test/helpers/log-imports.mjs'),
        join(ROOT, 'dist/bin/throttlelab.js'),
        'validate',
        'scenarios/quickstart.yaml',
      ],
      { cwd: ROOT, timeout: 30_000 },
    );
    const urls = [...stderr.matchAll(/^import: (file:\/\/.+)$/gm)].map((m) => m[1]!);
    // Packages by name wherever node_modules lives (a worktree may link it from elsewhere).
    const packages = new Set(urls.flatMap((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? []));
    expect([...packages].sort()).toEqual(['commander', 'yaml', 'zod']);
    const own = urls.filter((u) => u.startsWith(`file://${ROOT}/dist/`)).map((u) => u.slice(`file://${ROOT}/`.length));
    expect(own).toContain('dist/simulator/scenario/parse-scenario.js');
    expect(
      own.filter((f) =>
        /^dist\/(router\/|simulator\/(engine|transports|ledger)\/|harness\/(checks|report|load|sim)\/)/.test(f),
      ),
    ).toEqual([]);
  });
});

describe('the import graph of the harness', { timeout: 60_000 }, () => {
  it('loads echarts only when a chart is drawn, not with the harness', async () => {
    const { stderr } = await run(
      process.execPath,
      [
        '--import',
        join(ROOT, 'test/helpers/log-imports.mjs'),
        '--input-type=module',
        '-e',
        "await import('./dist/harness/index.js')",
      ],
      { cwd: ROOT, timeout: 30_000 },
    );
    const urls = [...stderr.matchAll(/^import: (file:\/\/.+)$/gm)].map((m) => m[1]!);
    expect(urls.some((u) => u.endsWith('/dist/harness/report/charts.js'))).toBe(true);
    expect(urls.filter((u) => /\/node_modules\/(echarts|zrender)\//.test(u))).toEqual([]);
  });
});
