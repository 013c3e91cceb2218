import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The folder of the throttlelab package this code runs from: the clone (sources through tsx,
 * or `dist/`) or the installed package in `node_modules`, never the current directory.
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  // bin/ (sources) or dist/bin/ (built): the package.json is one or two folders up.
  for (let i = 0; i < 4; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'throttlelab')
      return (root = dir);
    dir = dirname(dir);
  }
  throw new Error(`throttlelab's package.json was not found above ${fileURLToPath(import.meta.url)}`);
}

/** The version in the package's package.json (what `throttlelab --version` prints). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The conformance pack shipped with the package. */
export function builtinConformanceDir(): string {
  return join(packageRoot(), 'scenarios', 'conformance');
}
