import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { FUZZ_SEED, hostileYaml } from './hostile-yaml.js';

// Generated hostile YAML (huge numbers, wrong types, aliases, deep nesting, binary) fed to the
// scenario and router-config parsers through the command line: every run exits 0 (valid) or 2
// (located problems), never 70 (a bug), and memory stays bounded. Seeded: a failure prints its
// seed and counterexample; `FUZZ_SEED=n npx vitest run test/fuzz` replays it.

const rejections: unknown[] = [];
const onRejection = (e: unknown) => rejections.push(e);
afterAll(() => {
  process.off('unhandledRejection', onRejection);
  expect(rejections).toEqual([]);
});

let dir: string;
let scenarioBase: unknown;
let configBase: unknown;
beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  dir = await mkdtemp(join(tmpdir(), 'throttlelab-fuzz-'));
  scenarioBase = parse(await readFile('test/fixtures/harness/429-burst.yaml', 'utf8'));
  configBase = parse(await readFile('docs/router.example.yaml', 'utf8'));
});

const ENV = {
  THROTTLELAB_OPENAI_API_KEY: 'sk-fuzz-a',
  THROTTLELAB_ANTHROPIC_API_KEY: 'sk-fuzz-b',
  THROTTLELAB_GEMINI_API_KEY: 'sk-fuzz-c',
};

describe('the parsers given generated hostile YAML', () => {
  it('exit 0 or 2 from validate, never 70, for 300 scenarios', async () => {
    let n = 0;
    const rssBefore = process.memoryUsage().rss;
    await fc.assert(
      fc.asyncProperty(hostileYaml(scenarioBase), async (doc) => {
        const file = join(dir, `s${n++}.yaml`);
        await writeFile(file, doc);
        const r = await cli(['validate', file]);
        expect([0, 2], r.err.join('\n')).toContain(r.code);
      }),
      { seed: FUZZ_SEED, numRuns: 300 },
    );
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024);
  });

  it('exit 0 or 2 from router --config, never 70, for 200 configs', async () => {
    let n = 0;
    const rssBefore = process.memoryUsage().rss;
    await fc.assert(
      fc.asyncProperty(hostileYaml(configBase), async (doc) => {
        const file = join(dir, `c${n++}.yaml`);
        await writeFile(file, doc);
        // A valid config starts the router on a free loopback port and stops it at once.
        const r = await cli(['router', '--config', file, '--port', '0', '--host', '127.0.0.1', '--duration', '1ms'], {
          env: ENV,
        });
        expect([0, 2], r.err.join('\n')).toContain(r.code);
      }),
      { seed: FUZZ_SEED, numRuns: 200 },
    );
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024);
  });
});
