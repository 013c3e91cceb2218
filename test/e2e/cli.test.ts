import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../bin/commands/simulate.js';
import { validate } from '../../bin/commands/validate.js';
import type { Io } from '../../bin/io.js';
import { cli as cliInProcess } from '../helpers/cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

function captureIo(stopAfterMs?: number): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  const stop = new AbortController();
  if (stopAfterMs !== undefined) setTimeout(() => stop.abort(), stopAfterMs);
  return {
    lines,
    errors,
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    env: {},
    stop: stop.signal,
    randomSeed: () => 4242,
    isTTY: false,
    status: () => {},
  };
}

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'dist/bin/throttlelab.js'), ...args], {
      cwd: ROOT,
      timeout: 15_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('throttlelab validate', () => {
  it('prints every problem located and exits 2', async () => {
    const io = captureIo();
    const code = await validate({ files: ['test/fixtures/scenarios-invalid/typos.yaml'] }, io);
    expect(code).toBe(2);
    expect(io.errors.join('\n')).toMatchInlineSnapshot(`
      "test/fixtures/scenarios-invalid/typos.yaml:5:13 SCENARIO_INVALID_VALUE providers[0].vendor: Invalid option: expected one of "openai"|"azure-openai"|"anthropic"|"gemini"|"groq"|"mistral"|"deepseek"|"ratelimit-draft"|"bedrock"|"vertex-ai"|"openrouter"|"cerebras"|"together"|"xai"
      test/fixtures/scenarios-invalid/typos.yaml:9:19 SCENARIO_INVALID_VALUE providers[0].quotas[0].metric: Invalid option: expected one of "requests"|"tokens"|"input-tokens"|"output-tokens"|"concurrency"
      test/fixtures/scenarios-invalid/typos.yaml:11:45 SCENARIO_INVALID_DURATION faults[0].at: expected a duration such as 250ms, 5s or 1m30s (zero or more, at most 3650d), got "soon"
      1 of 1 file invalid."
    `);
  });

  it('accepts the shipped scenarios', async () => {
    const io = captureIo();
    expect(await validate({ files: ['scenarios/quickstart.yaml'] }, io)).toBe(0);
    expect(io.lines).toEqual(['scenarios/quickstart.yaml: ok (scenario "quickstart", 3 providers, 2 faults)']);
  });
});

describe('throttlelab simulate', () => {
  it('prints the seed, each base URL and the environment lines, then stops when asked', async () => {
    const io = captureIo(300);
    const code = await simulate({ scenario: 'scenarios/quickstart.yaml', seed: 9 }, io);
    expect(code).toBe(0);
    const text = io.lines.join('\n');
    expect(text).toMatch(/scenario "quickstart" \(seed 9; replay with --seed 9\)/);
    expect(text).toMatch(/openai\s+openai\s+http:\/\/127\.0\.0\.1:\d+\/openai\/v1/);
    expect(text).toMatch(/ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/anthropic/);
    expect(text).toMatch(/stopped after .*: 0 attempts\./);
  });

  it("reports its own event-loop lag, as run reports the harness's (a loop blocked for 200 ms shows)", async () => {
    const io = captureIo();
    const stop = new AbortController();
    // Once it serves, block this process's loop (the simulator's) for 200 ms, then stop it.
    const out = io.out;
    io.out = (l) => {
      out(l);
      if (l !== 'Ctrl-C to stop.') return;
      setTimeout(() => {
        const until = performance.now() + 200;
        while (performance.now() < until);
        // Stop only after the loop has turned again, so the monitor's own timer has sampled the
        // block: a timer set during the block is already due when it ends (timers count from the
        // loop's cached time), and could stop the monitor before it ran.
        setImmediate(() => setTimeout(() => stop.abort(), 50));
      }, 50);
    };
    io.stop = stop.signal;
    expect(await simulate({ scenario: 'scenarios/quickstart.yaml', seed: 9 }, io)).toBe(0);
    const line = io.lines.find((l) => l.startsWith('simulator lag:'));
    expect(line, io.lines.join('\n')).toMatch(/^simulator lag: event loop p99 \d+ ms \(max \d+ ms\)/);
    expect(Number(/max (\d+) ms/.exec(line!)![1])).toBeGreaterThanOrEqual(150);
  });

  it('serves TLS with --tls, writing the CA certificate and printing the NODE_EXTRA_CA_CERTS line', async () => {
    const { mkdtemp, readFile } = await import('node:fs/promises');
    const { X509Certificate } = await import('node:crypto');
    const { tmpdir } = await import('node:os');
    const caFile = join(await mkdtemp(join(tmpdir(), 'throttlelab-cli-tls-')), 'ca.pem');
    const io = captureIo(1500);
    expect(await simulate({ scenario: 'scenarios/quickstart.yaml', seed: 9, tls: true, tlsCaOut: caFile }, io)).toBe(0);
    const text = io.lines.join('\n');
    expect(text).toMatch(/listening on https:\/\/127\.0\.0\.1:\d+/);
    expect(text).toContain(`TLS: HTTP/2 and HTTP/1.1 by ALPN; the CA certificate is ${caFile}`);
    expect(io.lines).toContain(`  NODE_EXTRA_CA_CERTS=${caFile}`);
    expect(text).toMatch(/OPENAI_BASE_URL=https:\/\/127\.0\.0\.1:\d+\/openai\/v1/);
    const pem = await readFile(caFile, 'utf8');
    expect(new X509Certificate(pem).ca).toBe(true);
    expect(pem).not.toMatch(/PRIVATE KEY/);
  });

  it('refuses --tls-ca-out without --tls, and --tls with --workers', async () => {
    const alone = await cliInProcess(['simulate', 'scenarios/quickstart.yaml', '--tls-ca-out', 'ca.pem']);
    expect([alone.code, alone.err.join('\n')]).toEqual([2, expect.stringContaining('add --tls')]);
    const workers = await cliInProcess(['simulate', 'scenarios/quickstart.yaml', '--tls', '--workers', '2']);
    expect([workers.code, workers.err.join('\n')]).toEqual([2, expect.stringContaining('--tls serves one process')]);
  });

  it('refers to keys read from the environment instead of printing them', async () => {
    const io = captureIo(200);
    io.env = { SECRET_KEY: 'sk-real-secret-value' };
    const yaml = join(ROOT, 'test/fixtures/env-key.yaml');
    const { writeFile, rm } = await import('node:fs/promises');
    await writeFile(
      yaml,
      'version: 1\nname: env\nproviders:\n  - { id: openai, vendor: openai, models: [m], keys: [{ id: main, env: SECRET_KEY }] }\n',
    );
    try {
      expect(await simulate({ scenario: yaml }, io)).toBe(0);
    } finally {
      await rm(yaml);
    }
    const text = io.lines.join('\n');
    expect(text).toContain('OPENAI_API_KEY=$SECRET_KEY');
    expect(text).not.toContain('sk-real-secret-value');
    expect(text).toMatch(/seed 4242/);
  });
});

describe('the built binary', () => {
  it('exits 2 on bad input and 0 on help', async () => {
    const bad = await cli('validate', 'test/fixtures/scenarios-invalid/typos.yaml');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SCENARIO_INVALID_VALUE providers[0].vendor');
    const missing = await cli('simulate', 'no/such/file.yaml');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'no/such/file.yaml:1:1 SCENARIO_FILE_UNREADABLE (root): cannot read the file (ENOENT)',
    );
    expect((await cli('simulate', 'scenarios/quickstart.yaml', '--host', '0.0.0.0')).code).toBe(2);
    expect((await cli('--help')).code).toBe(0);
    expect((await cli('frobnicate')).code).toBe(2);
    // Five CLI processes one after another: 13 s measured on a busy machine, near vitest's default 20 s.
  }, 60_000);

  it('serves for a bounded duration and reports what it served', async () => {
    const r = await cli('simulate', 'scenarios/quickstart.yaml', '--duration', '300ms', '--seed', '5');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/seed 5; replay with --seed 5/);
    expect(r.stdout).toMatch(/stopped after/);
  });
});

describe('throttlelab router', () => {
  it('reports config problems located and exits 2', async () => {
    const r = await cli('router', '--config', 'docs/router.example.yaml');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^docs\/router\.example\.yaml:\d+:\d+ CONFIG_MISSING_ENV providers\[0\]\.keys\[0\]\.env: environment variable THROTTLELAB_OPENAI_API_KEY is not set/m,
    );
  });

  it('serves the example config when its keys are set, for a bounded duration', async () => {
    const io = captureIo();
    io.env = {
      THROTTLELAB_OPENAI_API_KEY: 'sk-a',
      THROTTLELAB_ANTHROPIC_API_KEY: 'sk-b',
      THROTTLELAB_GEMINI_API_KEY: 'sk-c',
    };
    const { routerCommand } = await import('../../bin/commands/router.js');
    expect(await routerCommand({ config: 'docs/router.example.yaml', port: 0, durationMs: 200, seed: 4 }, io)).toBe(0);
    const text = io.lines.join('\n');
    expect(text).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \(seed 4; replay with --seed 4\)/);
    expect(text).toContain('models: auto, fast, smart, openai/gpt-4o-mini');
    expect(text).not.toMatch(/sk-[abc]/);
  });
});
