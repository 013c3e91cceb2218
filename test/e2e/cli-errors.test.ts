import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.js';
import type { Io } from '../../bin/io.js';

// The one error boundary: a user's mistake prints one line and exits 2; only a bug exits 70.

function captureIo(over: Partial<Io> = {}): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (l) => lines.push(l),
    err: (l) => errors.push(...l.split('\n')),
    env: {},
    stop: new AbortController().signal,
    randomSeed: () => 7,
    isTTY: false,
    status: () => {},
    ...over,
  };
}

async function cli(...args: string[]) {
  const io = captureIo();
  const code = await runCli(args, io);
  return { code, out: io.lines, err: io.errors };
}

let dir: string;
let taken: Server;
let takenPort: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'throttlelab-cli-'));
  taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  takenPort = (taken.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((r) => taken.close(() => r())));

const SCENARIO = 'test/fixtures/harness/429-burst.yaml';

describe('throttlelab usage', () => {
  it('exits 2 given an unknown command or a bad flag value', async () => {
    expect((await cli('explode')).code).toBe(2);
    const bad = await cli('simulate', SCENARIO, '--seed', 'x');
    expect(bad.code).toBe(2);
    expect(bad.err.join('\n')).toContain("option '--seed <n>' argument 'x' is invalid");
  });

  it('prints the package version given --version', async () => {
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    expect(await cli('--version')).toEqual({ code: 0, out: [version], err: [] });
  });

  it('answers a mistyped flag with the error, a suggestion and one line, not the whole help', async () => {
    const r = await cli('run', SCENARIO, '--sedd', '3');
    expect(r.code).toBe(2);
    expect(r.err.join('\n')).toMatchInlineSnapshot(`
      "error: unknown option '--sedd'
      (Did you mean --seed?)
      (add --help for the usage)"
    `);
  });

  it('exits 2 with one line given a duration that is not one', async () => {
    const r = await cli('simulate', SCENARIO, '--duration', 'soon');
    expect(r).toMatchObject({
      code: 2,
      err: ['throttlelab: CLI_USAGE: --duration: expected a duration such as 30s or 5m, got "soon".'],
    });
  });
});

describe('throttlelab validate', () => {
  it('exits 2 with a located line given a file that does not exist', async () => {
    const r = await cli('validate', 'nope.yaml');
    expect(r.code).toBe(2);
    expect(r.err[0]).toBe('nope.yaml:1:1 SCENARIO_FILE_UNREADABLE (root): cannot read the file (ENOENT)');
  });
});

describe('throttlelab simulate', () => {
  it('exits 2 with one line given a port already in use', async () => {
    const r = await cli('simulate', SCENARIO, '--port', String(takenPort), '--duration', '1ms');
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(
      /^throttlelab: SIM_SERVER_START_FAILED: Failed to start the simulator on 127\.0\.0\.1:\d+: .*EADDRINUSE/,
    );
  });

  it('exits 2 before serving given a ledger file it cannot write', async () => {
    const r = await cli('simulate', SCENARIO, '--ledger-out', join(dir, 'missing', 'l.jsonl'), '--duration', '1ms');
    expect(r.code).toBe(2);
    expect(r.err).toEqual([
      `throttlelab: CLI_OUTPUT_UNWRITABLE: --ledger-out ${join(dir, 'missing', 'l.jsonl')}: cannot write (ENOENT).`,
    ]);
    expect(r.out).toEqual([]);
  });
});

describe('throttlelab run', () => {
  it('exits 2 with one line naming an unreachable router', async () => {
    const r = await cli('run', SCENARIO, '--router-url', 'http://127.0.0.1:9/v1', '--out', join(dir, 'r1'));
    expect(r.code).toBe(2);
    expect(r.err).toEqual([
      'throttlelab: HARNESS_ROUTER_UNREACHABLE: Failed to reach the router at http://127.0.0.1:9/v1: ECONNREFUSED. Start it first, pointed at the simulator, or check the URL.',
    ]);
  });

  it('exits 2 given a router command that exits before answering', async () => {
    const r = await cli('run', SCENARIO, '--router-cmd', 'echo broken >&2; exit 3', '--out', join(dir, 'r2'));
    expect(r.code).toBe(2);
    expect(r.err[0]).toBe(
      'throttlelab: HARNESS_ROUTER_START_FAILED: Failed to start the router: `echo broken >&2; exit 3` exited with code 3 before answering.',
    );
    expect(r.err.slice(1).join('\n')).toContain('  | broken');
  });

  it('exits 2 before any load given a report folder it cannot write', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const r = await cli('run', SCENARIO, '--out', join(file, 'sub'));
    expect(r.code).toBe(2);
    expect(r.err).toEqual([
      `throttlelab: CLI_OUTPUT_UNWRITABLE: --out ${join(file, 'sub')}: ${file} is not a folder. Name a folder.`,
    ]);
    expect(r.out).toEqual([]);
  });

  it('exits 2 with a located line given a scenario without a load', async () => {
    const r = await cli('run', 'scenarios/conformance/../../test/fixtures/scenarios-invalid/typos.yaml');
    expect(r.code).toBe(2);
    expect(r.err[0]).toMatch(/typos\.yaml:\d+:\d+ SCENARIO_/);
  });
});

describe('throttlelab conform', () => {
  it('exits 2 given a scenario folder that does not exist or holds no scenarios', async () => {
    expect(await cli('conform', '--dir', join(dir, 'none'))).toMatchObject({
      code: 2,
      err: [
        `throttlelab: CLI_NO_SCENARIOS: --dir ${join(dir, 'none')}: no such folder. Name the folder of the conformance scenarios.`,
      ],
    });
    expect(await cli('conform', '--dir', dir)).toMatchObject({
      code: 2,
      err: [`throttlelab: CLI_NO_SCENARIOS: --dir ${dir}: no scenario files (*.yaml).`],
    });
  });
});

describe('throttlelab report', () => {
  it('exits 2 given a missing file, a file that is not JSON, or JSON that is not a report', async () => {
    const missing = await cli('report', join(dir, 'none.json'));
    expect(missing).toMatchObject({
      code: 2,
      err: [`throttlelab: SYSTEM_ENOENT: Failed to open ${join(dir, 'none.json')}: ENOENT.`],
    });
    const notJson = join(dir, 'bad.json');
    await writeFile(notJson, '{ nope');
    expect((await cli('report', notJson)).err[0]).toMatch(
      /^throttlelab: HARNESS_REPORT_INVALID: .*bad\.json is not JSON/,
    );
    const notReport = join(dir, 'other.json');
    await writeFile(notReport, '{"schema":"x"}');
    expect(await cli('report', notReport)).toMatchObject({
      code: 2,
      err: [
        `throttlelab: HARNESS_REPORT_INVALID: Failed to read ${notReport}: it is not a throttlelab report (schema throttlelab.report/v1 or throttlelab.reports/v1).`,
      ],
    });
  });
});

describe('throttlelab router', () => {
  const config =
    'version: 1\nproviders:\n  - { id: a, vendor: openai, baseUrl: "http://127.0.0.1:1/v1", keys: [{ id: k, env: HOME }], models: [m] }\n';

  it('exits 2 with a located line given a config it cannot read or that is wrong', async () => {
    expect((await cli('router', '--config', join(dir, 'none.yaml'))).err).toEqual([
      `${join(dir, 'none.yaml')}:1:1 CONFIG_FILE_UNREADABLE (root): cannot read the file (ENOENT)`,
    ]);
    const bad = join(dir, 'bad-router.yaml');
    await writeFile(bad, 'version: 1\nproviders: []\nextra: 1\n');
    const r = await cli('router', '--config', bad);
    expect(r.code).toBe(2);
    expect(r.err).toEqual([
      `${bad}:2:12 CONFIG_OUT_OF_RANGE providers: Too small: expected array to have >=1 items`,
      `${bad}:3:1 CONFIG_UNKNOWN_KEY extra: unknown key "extra"`,
    ]);
  });

  it('exits 2 with one line given a port already in use', async () => {
    const file = join(dir, 'router.yaml');
    await writeFile(file, config);
    const io = captureIo({ env: { HOME: 'x' } });
    const code = await runCli(['router', '--config', file, '--port', String(takenPort), '--duration', '1ms'], io);
    expect(code).toBe(2);
    expect(io.errors).toHaveLength(1);
    expect(io.errors[0]).toMatch(
      /^throttlelab: ROUTER_SERVER_START_FAILED: Failed to start the router on 127\.0\.0\.1:\d+: .*EADDRINUSE/,
    );
  });
});

describe('the error boundary', () => {
  it("prints the stack and exits 70 given an error that is not the user's", async () => {
    const io = captureIo({
      out: () => {
        throw new TypeError('a defect of ours');
      },
    });
    expect(await runCli(['validate', 'scenarios/quickstart.yaml'], io)).toBe(70);
    expect(io.errors[0]).toBe('throttlelab: internal error; this is a bug, please report it.');
    expect(io.errors[1]).toBe('TypeError: a defect of ours');
    expect(io.errors.some((l) => l.includes('cli-errors.test.ts'))).toBe(true);
  });
});
