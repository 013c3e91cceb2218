import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keepHandBlocks, writePeerPage } from './peer-page.js';

const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-peer-page-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

const generated = (table: string) =>
  ['# Peers', '', table, '', '<!-- hand:notes -->', '<!-- /hand:notes -->', '', '## Failures', ''].join('\n');

describe('writePeerPage', () => {
  it('keeps the hand-written analysis of the page it regenerates and replaces the tables', async () => {
    const file = join(tmp, 'peers.md');
    await writePeerPage(file, generated('| old table |'));
    const edited = (await readFile(file, 'utf8')).replace(
      '<!-- hand:notes -->\n',
      '<!-- hand:notes -->\nWhy 07 fails: the gateway retries the wall.\n',
    );
    await writeFile(file, edited);
    await writePeerPage(file, generated('| new table |'));
    const page = await readFile(file, 'utf8');
    expect(page).toContain('<!-- hand:notes -->\nWhy 07 fails: the gateway retries the wall.\n<!-- /hand:notes -->');
    expect(page).toContain('| new table |');
    expect(page).not.toContain('| old table |');
  });

  it('writes a new page with empty hand-written blocks in a folder it creates', async () => {
    const file = join(tmp, 'reports', 'peers', 'portkey.md');
    await writePeerPage(file, generated('| t |'));
    expect(await readFile(file, 'utf8')).toBe(generated('| t |'));
  });
});

describe('keepHandBlocks', () => {
  it('keeps a hand-written block the new page has no place for at the end', () => {
    const previous = '<!-- hand:clauses -->\nclause 3 is contested\n<!-- /hand:clauses -->\n';
    expect(keepHandBlocks(previous, generated('| t |'))).toMatch(
      /## Kept from the previous page \(no place for them here\)\n\n<!-- hand:clauses -->\nclause 3 is contested\n<!-- \/hand:clauses -->\n$/,
    );
  });
});
