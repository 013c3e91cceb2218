import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeEvidenceFiles } from '../../bin/evidence-files.js';
import { writeReportFolder } from '../../harness/report/write-report.js';
import type { LedgerRow } from '../../simulator/index.js';

// A full disk while a run's evidence is written: each file is whole or absent (an empty
// ledger.jsonl reads as "no attempts"), and the error names the file. No real disk is filled: the
// writes are injected.

const dirs: string[] = [];
const tmp = async () => {
  const d = await mkdtemp(join(tmpdir(), 'tl-evidence-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const rows = Array.from({ length: 3000 }, (_, seq) => ({
  seq,
  provider: 'openai',
  note: 'x'.repeat(40),
})) as never as LedgerRow[];

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

describe('evidence files on a full disk', () => {
  it('leaves no partial ledger.jsonl, no temporary file, and names the file', async () => {
    const dir = await tmp();
    let writes = 0;
    const full = {
      write: () => {
        // The first chunk goes; the disk fills on the second.
        if (++writes > 1) throw enospc();
      },
    };
    await expect(writeEvidenceFiles(dir, { rows, outcomes: [] }, full)).rejects.toMatchObject({
      code: 'CLI_OUTPUT_UNWRITABLE',
      message: expect.stringContaining(`Failed to write ${join(dir, 'ledger.jsonl')}: ENOSPC.`),
    });
    expect(writes).toBe(2);
    expect(await readdir(dir)).toEqual([]);
  });

  it('writes every row when the disk takes them', async () => {
    const dir = await tmp();
    const quits: Array<() => void> = [];
    await writeEvidenceFiles(dir, { rows, outcomes: [] }, { onQuit: (c) => quits.push(c) });
    expect((await readFile(join(dir, 'ledger.jsonl'), 'utf8')).trimEnd().split('\n')).toHaveLength(3000);
    expect((await readdir(dir)).sort()).toEqual(['ledger.jsonl', 'outcomes.jsonl']);
    // A quit at once after the files were renamed into place removes nothing.
    for (const q of quits) q();
    expect((await readdir(dir)).sort()).toEqual(['ledger.jsonl', 'outcomes.jsonl']);
  });

  it('names the report file it could not write', async () => {
    const dir = await tmp();
    // A folder where report.json goes: the rename into place fails as a full disk's write does.
    await mkdir(join(dir, 'report.json'));
    await expect(writeReportFolder(dir, [])).rejects.toMatchObject({
      code: 'HARNESS_REPORT_UNWRITABLE',
      message: expect.stringContaining(`Failed to write ${join(dir, 'report.json')}:`),
    });
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
