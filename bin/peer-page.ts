import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

const BLOCK = /<!-- hand:([\w-]+) -->[\s\S]*?<!-- \/hand:\1 -->/g;

/**
 * The generated page with the hand-written blocks (`<!-- hand:NAME -->` … `<!-- /hand:NAME -->`)
 * of the page it replaces put back in their places. A block the new page has no place for is kept
 * at the end, under a heading that says so: regenerating never drops hand-written analysis.
 */
export function keepHandBlocks(previous: string, generated: string): string {
  const old = new Map([...previous.matchAll(BLOCK)].map((m) => [m[1]!, m[0]]));
  const placed = new Set<string>();
  const page = generated.replace(BLOCK, (block, name: string) => {
    placed.add(name);
    return old.get(name) ?? block;
  });
  const orphans = [...old].filter(([name]) => !placed.has(name)).map(([, block]) => block);
  if (orphans.length === 0) return page;
  return `${page.replace(/\n*$/, '\n')}\n## Kept from the previous page (no place for them here)\n\n${orphans.join('\n\n')}\n`;
}

/** Writes a peer page to `file`, keeping the hand-written blocks of the page already there; through a rename, so it is whole or absent. */
export async function writePeerPage(file: string, generated: string): Promise<void> {
  const previous = existsSync(file) ? await readFile(file, 'utf8') : '';
  await mkdir(dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, keepHandBlocks(previous, generated));
  await rename(`${file}.tmp`, file);
}
