import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

function imports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => (m[1] ?? m[2])!,
  );
}

function resolved(file: string, spec: string): string {
  return spec.startsWith('.') ? relative(ROOT, join(ROOT, file, '..', spec)) : spec;
}

describe('architecture', () => {
  it('keeps router/ and simulator/ from importing each other', () => {
    const bad: string[] = [];
    for (const [from, forbidden] of [
      ['simulator', 'router/'],
      ['router', 'simulator/'],
    ] as const) {
      for (const file of sources(from))
        for (const spec of imports(file))
          if (resolved(file, spec).startsWith(forbidden)) bad.push(`${file} -> ${spec}`);
    }
    expect(bad).toEqual([]);
  });

  it('keeps production code out of test/ and bin/', () => {
    const bad: string[] = [];
    for (const dir of ['simulator', 'router']) {
      for (const file of sources(dir)) {
        for (const spec of imports(file)) {
          const r = resolved(file, spec);
          if (r.startsWith('test/') || r.startsWith('bin/')) bad.push(`${file} -> ${spec}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('lets only bin/ touch process.argv, process.env, process.exit and the terminal', () => {
    const bad: string[] = [];
    for (const dir of ['simulator', 'router']) {
      for (const file of sources(dir)) {
        const text = readFileSync(join(ROOT, file), 'utf8');
        for (const api of [
          'process.argv',
          'process.env',
          'process.exit',
          'process.stdout',
          'process.stderr',
          'console.log',
        ])
          if (text.includes(api)) bad.push(`${file}: ${api}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('keeps time and randomness injected in pure folders', () => {
    const bad: string[] = [];
    const pure = [
      ...sources('simulator/core'),
      ...sources('simulator/quota'),
      ...sources('simulator/engine'),
      ...sources('simulator/vendors'),
    ].filter((f) => !f.endsWith('clock.ts'));
    for (const file of pure) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const api of ['Date.now(', 'Math.random(', 'performance.now(', 'setTimeout(', 'AbortSignal.timeout('])
        if (text.includes(api)) bad.push(`${file}: ${api}`);
    }
    expect(bad).toEqual([]);
  });
});
