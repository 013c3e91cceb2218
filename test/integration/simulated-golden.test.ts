import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';

// The evidence of simulated runs, pinned: SHA-256 of report.json (its run timestamp blanked),
// ledger.jsonl and outcomes.jsonl for quickstart and every scenario of the conformance pack, as
// `throttlelab run <file> --time simulated` writes them with each scenario's own seed. Work that
// only makes simulated time cheaper must leave every digest as it is. A change meant to alter
// what the simulator, router or harness do regenerates the file on purpose:
//   THROTTLELAB_UPDATE_GOLDEN=1 npx vitest run test/integration/simulated-golden.test.ts
const ROOT = join(import.meta.dirname, '../..');
const GOLDEN = join(ROOT, 'test/fixtures/simulated/golden-digests.json');
const update = process.env.THROTTLELAB_UPDATE_GOLDEN === '1';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
// Each check's judging time (wall ms, the JUnit time) varies from run to run like the timestamp.
const withoutTimestamp = (text: string) =>
  text.replace(/"startedAt": ?"[^"]*"/g, '"startedAt":"-"').replace(/,\n\s*"judgedMs": [\d.e-]+/g, '');

describe('simulated runs, byte for byte as pinned', () => {
  it('writes the pinned report.json (minus its timestamp), ledger.jsonl and outcomes.jsonl for quickstart and the pack', async () => {
    const pack = (await readdir(join(ROOT, 'scenarios/conformance'))).filter((f) => f.endsWith('.yaml')).sort();
    const files = ['scenarios/quickstart.yaml', ...pack.map((f) => `scenarios/conformance/${f}`)];
    const digests: Record<string, Record<string, string>> = {};
    for (const file of files) {
      const out = await mkdtemp(join(tmpdir(), 'tl-golden-'));
      dirs.push(out);
      // Relative, as the report names the file it was given (tests run from the repository's root).
      const r = await cli(['run', file, '--time', 'simulated', '--out', out]);
      expect(r.code, `${file}: ${r.err.join('\n')}`).not.toBe(2);
      expect(r.code, file).not.toBe(70);
      digests[file] = {
        'report.json': sha256(withoutTimestamp(await readFile(join(out, 'report.json'), 'utf8'))),
        'ledger.jsonl': sha256(await readFile(join(out, 'ledger.jsonl'), 'utf8')),
        'outcomes.jsonl': sha256(await readFile(join(out, 'outcomes.jsonl'), 'utf8')),
      };
    }
    if (update) await writeFile(GOLDEN, `${JSON.stringify(digests, null, 2)}\n`);
    const pinned = JSON.parse(await readFile(GOLDEN, 'utf8')) as typeof digests;
    expect(digests).toEqual(pinned);
  }, 300_000);
});
