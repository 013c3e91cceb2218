import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';

// Absurd and hostile files (test/fixtures/hostile/) get one located line and exit 2, never a
// stack, a hang or an exhausted heap.

const F = 'test/fixtures/hostile';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'throttlelab-hostile-'));
});

const validate = async (file: string) => {
  const r = await cli(['validate', file]);
  return { code: r.code, err: r.err.filter((l) => !/file.* invalid\.$/.test(l)) };
};

describe('validate given absurd values', () => {
  it.each([
    [
      'ttft-99999d',
      '8:22 SCENARIO_OUT_OF_RANGE providers[0].latency.ttft: expected at most 24d (no timer can wait longer)',
    ],
    [
      'completion-tokens-1e12',
      '8:34 SCENARIO_OUT_OF_RANGE providers[0].latency.completionTokens: Too big: expected number to be <=131072',
    ],
    [
      'load-prompt-tokens-1e9',
      '11:29 SCENARIO_OUT_OF_RANGE load.requests.promptTokens: Too big: expected number to be <=200000',
    ],
    [
      'load-deadline-30d',
      '11:25 SCENARIO_OUT_OF_RANGE load.requests.deadline: a request deadline is at most 10 minutes (a run waits for its slowest answer)',
    ],
    ['duplicate-key', '3:1 SCENARIO_YAML_SYNTAX (root): Map keys must be unique'],
  ])('refuses %s, located', async (name, line) => {
    expect(await validate(`${F}/${name}.yaml`)).toEqual({ code: 2, err: [`${F}/${name}.yaml:${line}`] });
  });

  it('refuses a duration whose digits overflow to Infinity', async () => {
    const r = await validate(`${F}/duration-digits-overflow.yaml`);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/:9:48 SCENARIO_INVALID_DURATION faults\[0\]\.at: expected a duration/);
  });

  it('refuses a keep-alive hold of 99999 days before planning any filler', async () => {
    const r = await validate(`${F}/keep-alive-hold-99999d.yaml`);
    expect(r.err).toEqual([
      `${F}/keep-alive-hold-99999d.yaml:9:5 SCENARIO_OUT_OF_RANGE faults[0].interval: a hold sends one filler per interval, at most 10000: lengthen "interval" or shorten "holdFor"`,
      `${F}/keep-alive-hold-99999d.yaml:9:44 SCENARIO_OUT_OF_RANGE faults[0].holdFor: expected at most 24d (no timer can wait longer)`,
    ]);
  });
});

describe('validate given hostile YAML', () => {
  it('refuses a billion-laughs alias bomb at its first alias', async () => {
    expect(await validate(`${F}/billion-laughs.yaml`)).toEqual({
      code: 2,
      err: [
        `${F}/billion-laughs.yaml:4:8 SCENARIO_YAML_ALIAS (root): its aliases expand too far (an alias bomb?); write the values out or use fewer aliases of large anchors`,
      ],
    });
  });

  it('accepts a legitimate file that uses one anchor 150 times', async () => {
    const r = await cli(['validate', `${F}/one-anchor-150-times.yaml`]);
    expect(r).toMatchObject({ code: 0, out: [expect.stringContaining('ok (scenario "one-anchor-150-times"')] });
  });

  it('refuses nesting 5,000 deep', async () => {
    const r = await validate(`${F}/deep-nesting.yaml`);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    // The column is where the parser ran out of stack, which depends on the stack left.
    expect(r.err[0]).toMatch(
      /deep-nesting\.yaml:3:\d+ SCENARIO_TOO_DEEP \(root\): the document is nested too deeply to read \(at most 64 levels\)$/,
    );
  });

  it('refuses 20 MB and 50 MB scenarios and an endless device at once, unread', async () => {
    const big = join(dir, 'big.yaml');
    const line = '  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-x }] }\n';
    await writeFile(big, `version: 1\nname: big\nproviders:\n${line.repeat(Math.ceil(20e6 / line.length))}`);
    const huge = join(dir, 'huge.yaml');
    await writeFile(huge, Buffer.alloc(50e6, 'a'));
    const started = performance.now();
    for (const file of [big, huge, '/dev/zero'])
      expect(await validate(file)).toEqual({
        code: 2,
        err: [
          `${file}:1:1 SCENARIO_TOO_LARGE (root): the file is over 1048576 bytes (1 MiB); a scenario is at most that`,
        ],
      });
    // Generous on a busy machine; the defect took 66 s and 3.4 GB.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it.each([
    ['utf-16', '1:1', 'the file is UTF-16 or UTF-32 (it starts with a byte order mark); save it as UTF-8'],
    ['latin-1', '8:10', 'the file is not UTF-8 text (an invalid byte here); save it as UTF-8'],
    ['binary', '1:1', 'the file is not UTF-8 text (an invalid byte here); save it as UTF-8'],
  ])('names the encoding of a %s file', async (name, at, message) => {
    expect(await validate(`${F}/${name}.yaml`)).toEqual({
      code: 2,
      err: [`${F}/${name}.yaml:${at} SCENARIO_FILE_ENCODING (root): ${message}`],
    });
  });

  it('names NUL bytes in a file without a byte order mark', async () => {
    const file = join(dir, 'nul.yaml');
    await writeFile(file, 'version: 1\nname: a\0b\n');
    expect(await validate(file)).toEqual({
      code: 2,
      err: [
        `${file}:2:8 SCENARIO_FILE_ENCODING (root): the file holds NUL bytes: it is binary, or UTF-16 without a byte order mark; save it as UTF-8 text`,
      ],
    });
  });
});

describe('the terminal given control characters in a file', () => {
  it('prints them escaped, so a scenario name cannot drive the terminal', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      'dist/bin/throttlelab.js',
      'validate',
      `${F}/control-characters.yaml`,
    ]);
    expect(stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(stdout).toBe(
      `${F}/control-characters.yaml: ok (scenario "\\u001b[2J\\u001b[31mPWNED\\u001b]0;title\\u0007 \\u009b31m", 1 provider, 0 faults)\n`,
    );
  });
});

describe('throttlelab router given a hostile config', () => {
  it.each([
    ['billion-laughs', '1:1 CONFIG_YAML_ALIAS (root): its aliases expand too far (an alias bomb?)'],
    [
      'utf-16',
      '1:1 CONFIG_FILE_ENCODING (root): the file is UTF-16 or UTF-32 (it starts with a byte order mark); save it as UTF-8',
    ],
    ['deep-nesting', '1:1 CONFIG_TOO_DEEP (root): nested too deeply to read (at most 64 levels)'],
  ])('exits 2 with one located line given %s', async (name, line) => {
    expect(await cli(['router', '--config', `${F}/${name}.yaml`])).toMatchObject({
      code: 2,
      err: [`${F}/${name}.yaml:${line}`],
    });
  });

  it('refuses a zero attempt timeout and deadline, and durations that overflow a timer', async () => {
    const file = join(dir, 'zero.yaml');
    await writeFile(
      file,
      'version: 1\nproviders:\n  - { id: a, vendor: openai, baseUrl: "http://127.0.0.1:1/v1", keys: [{ id: k, env: HOME }], models: [m] }\ndeadline: { default: 0s }\nattempt: { timeout: 0, firstTokenTimeout: 30d }\nretry: { backoff: { base: 0ms } }\n',
    );
    const r = await cli(['router', '--config', file], { env: { HOME: 'x' } });
    expect(r.code).toBe(2);
    expect(r.err).toEqual([
      `${file}:4:22 CONFIG_OUT_OF_RANGE deadline.default: expected a duration greater than zero`,
      `${file}:5:21 CONFIG_OUT_OF_RANGE attempt.timeout: expected a duration greater than zero`,
      `${file}:5:43 CONFIG_OUT_OF_RANGE attempt.firstTokenTimeout: expected at most 24d (timers cannot wait longer), got "30d"`,
      `${file}:6:27 CONFIG_OUT_OF_RANGE retry.backoff.base: expected a duration greater than zero`,
    ]);
  });
});

describe('the command line given absurd values', () => {
  it('refuses --duration past what a timer can wait', async () => {
    expect(await cli(['simulate', 'scenarios/quickstart.yaml', '--duration', '25d'])).toMatchObject({
      code: 2,
      err: ['throttlelab: CLI_USAGE: --duration: at most 24d, got "25d"; leave it out to run until stopped.'],
    });
  });

  it('exits 2 naming the host given a router host that does not resolve', async () => {
    const file = join(dir, 'host.yaml');
    await writeFile(
      file,
      'version: 1\nproviders:\n  - { id: a, vendor: openai, baseUrl: "http://127.0.0.1:1/v1", keys: [{ id: k, env: HOME }], models: [m] }\n',
    );
    const r = await cli(['router', '--config', file, '--host', 'nohost.invalid', '--duration', '1ms'], {
      env: { HOME: 'x' },
    });
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(
      /^throttlelab: ROUTER_SERVER_START_FAILED: Failed to start the router on nohost\.invalid:8080: .*(ENOTFOUND|EAI_AGAIN).*\. The host nohost\.invalid is not an address of this machine; use 127\.0\.0\.1 or ::1\.$/,
    );
  });
});
