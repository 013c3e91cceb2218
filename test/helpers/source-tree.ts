import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

// What the architecture test reads: the repository's TypeScript files and the imports in them,
// found by a regular expression rather than the compiler so the test stays fast and has no
// opinion on types. It finds every import the compiler finds, and a few more inside strings.

const ROOT = join(import.meta.dirname, '..', '..');

/** A file of the repository: its path from the root (posix) and its text. */
export interface SourceFile {
  path: string;
  text: string;
}

/** Whether a path is a test (a suite or a shared contract case). */
export const isTest = (path: string) => path.endsWith('.test.ts') || path.endsWith('.case.ts');

/** Every .ts file under `dir` (a path from the root), tests only when asked. */
export function sources(dir: string, withTests = false): SourceFile[] {
  const out: SourceFile[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = posix.join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path, withTests));
    else if (name.endsWith('.ts') && (withTests || !isTest(path)))
      out.push({ path, text: readFileSync(join(ROOT, path), 'utf8') });
  }
  return out;
}

/** The module specifiers a file imports or re-exports, statically or dynamically, and whether only for types. */
export function importsOf(text: string): Array<{ spec: string; typeOnly: boolean }> {
  const specs = text.matchAll(/((?:import|export)[^'"`;]*?)from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g);
  return [...specs].map((m) => ({ spec: (m[2] ?? m[3])!, typeOnly: /^(?:import|export) type\b/.test(m[1] ?? '') }));
}

/** A relative specifier as a path from the root; a package name as it is. */
export function resolveSpec(file: string, spec: string): string {
  return spec.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), spec)) : spec;
}
