import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { writeEvidenceFiles } from '../../bin/evidence-files.js';
import { findEvidenceFile, readJsonl } from '../../bin/evidence-read.js';
import type { ClientOutcome } from '../../harness/index.js';
import type { LedgerRow } from '../../simulator/index.js';
import { cli } from '../helpers/cli.js';

// Evidence written gzip-compressed (node:zlib streams, through the same atomic temporary file
// and rename as plain JSONL) reads back item for item, and `--evidence` decides what is kept.

const dirs: string[] = [];
const tmp = async () => {
  const d = await mkdtemp(join(tmpdir(), 'tl-evidence-gz-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

// Enough rows for many chunks and many gzip pieces, with text that does not compress to nothing.
const rows = Array.from({ length: 20_000 }, (_, seq) => ({
  seq,
  provider: ['openai', 'anthropic', 'gemini'][seq % 3],
  correlationId: `r-${(seq * 7919) % 15_000}`,
  note: `é ${seq.toString(36).repeat(1 + (seq % 7))}`,
})) as never as LedgerRow[];
const outcomes = Array.from({ length: 15_000 }, (_, i) => ({ id: `r-${i}`, status: 200 })) as never as ClientOutcome[];
const collect = async (path: string) => {
  const items: unknown[] = [];
  for await (const item of readJsonl(path)) items.push(item);
  return items;
};
const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

describe('gzip-compressed evidence', () => {
  it('reads a run folder written gzip back identically to the one written plain', async () => {
    const plain = await tmp();
    const gz = await tmp();
    await writeEvidenceFiles(plain, { rows, outcomes });
    const written = await writeEvidenceFiles(gz, { rows, outcomes }, {}, true);
    expect(written).toEqual([join(gz, 'ledger.jsonl.gz'), join(gz, 'outcomes.jsonl.gz')]);
    expect((await readdir(gz)).sort()).toEqual(['ledger.jsonl.gz', 'outcomes.jsonl.gz']);
    for (const base of ['ledger', 'outcomes'] as const) {
      const gzPath = (await findEvidenceFile(gz, base))!;
      const plainPath = (await findEvidenceFile(plain, base))!;
      expect(gunzipSync(await readFile(gzPath)).equals(await readFile(plainPath))).toBe(true);
      expect(await collect(gzPath)).toEqual(JSON.parse(JSON.stringify(base === 'ledger' ? rows : outcomes)));
    }
    expect((await readFile(join(gz, 'ledger.jsonl.gz'))).length).toBeLessThan(
      (await readFile(join(plain, 'ledger.jsonl'))).length / 4,
    );
  });

  it('leaves no partial ledger.jsonl.gz and no temporary file when the disk fills mid-stream', async () => {
    const dir = await tmp();
    let writes = 0;
    const full = {
      write: () => {
        if (++writes > 2) throw enospc();
      },
    };
    await expect(writeEvidenceFiles(dir, { rows, outcomes }, full, true)).rejects.toMatchObject({
      code: 'CLI_OUTPUT_UNWRITABLE',
      message: expect.stringContaining(`Failed to write ${join(dir, 'ledger.jsonl.gz')}: ENOSPC.`),
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('says which file and line is not JSON, and reads a cut gzip file as an error, not as fewer rows', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'ledger.jsonl'), '{"seq":0}\nnot json\n');
    await expect(collect(join(dir, 'ledger.jsonl'))).rejects.toMatchObject({
      code: 'CLI_EVIDENCE_INVALID',
      message: expect.stringContaining(`${join(dir, 'ledger.jsonl')}:2: not a JSON line`),
    });
    await writeEvidenceFiles(dir, { rows, outcomes }, {}, true);
    const whole = await readFile(join(dir, 'ledger.jsonl.gz'));
    await writeFile(join(dir, 'ledger.jsonl.gz'), whole.subarray(0, whole.length >> 1));
    await expect(collect(join(dir, 'ledger.jsonl.gz'))).rejects.toThrow();
  });
});

describe('--evidence', () => {
  it('writes no JSONL with none, and the report says the evidence was not kept', async () => {
    const out = await tmp();
    const r = await cli([
      'run',
      'scenarios/quickstart.yaml',
      '--time',
      'simulated',
      '--evidence',
      'none',
      '--out',
      out,
    ]);
    expect(r.code).not.toBe(2);
    expect((await readdir(out)).filter((f) => f.includes('jsonl'))).toEqual([]);
    const notKept =
      /^evidence: not kept \(--evidence none\): no ledger or outcomes file; .* \(\d+ attempts and \d+ outcomes not written\)$/m;
    expect(r.out.join('\n')).toMatch(notKept);
    expect(await readFile(join(out, 'summary.md'), 'utf8')).toContain('Evidence: not kept (--evidence none)');
    expect(JSON.parse(await readFile(join(out, 'report.json'), 'utf8')).evidence).toMatchObject({
      mode: 'none',
      files: [],
    });
    const again = await cli(['report', join(out, 'report.json')]);
    expect(again.out.join('\n')).toMatch(notKept);
  }, 120_000);

  it('keeps in summary the rows of the requests the report cites, which report reads back', async () => {
    const out = await tmp();
    const r = await cli([
      'run',
      'scenarios/quickstart.yaml',
      '--time',
      'simulated',
      '--evidence',
      'summary',
      '--out',
      out,
    ]);
    expect(r.code).not.toBe(2);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    const cited = new Set<string>(
      report.checks
        .flatMap((c: { evidence: Array<{ correlationId?: string }> }) => c.evidence.map((e) => e.correlationId))
        .filter(Boolean),
    );
    const ledger = (await collect(join(out, 'ledger.jsonl'))) as Array<{ correlationId: string }>;
    expect(ledger.every((row) => cited.has(row.correlationId))).toBe(true);
    expect(ledger.length).toBe(report.evidence.attempts);
    expect(report.evidence.attempts).toBeLessThan(report.evidence.of.attempts);
    const again = await cli(['report', join(out, 'report.json')]);
    expect(again.out).toContain(
      `evidence read back whole: ledger.jsonl ${report.evidence.attempts}, outcomes.jsonl ${report.evidence.outcomes}`,
    );
  }, 120_000);

  it('refuses a mode it does not know (exit 2)', async () => {
    const r = await cli(['run', 'scenarios/quickstart.yaml', '--evidence', 'some']);
    expect(r.code).toBe(2);
    expect(r.err.join('\n')).toContain('expected full, summary or none');
  });
});
