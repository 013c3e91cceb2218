import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

// The walls between the three products. The same rules run over the real tree (no violations)
// and over a small made-up tree that crosses each wall once (each caught), so a rule that can no
// longer fail is noticed.

const ROOT = join(import.meta.dirname, '..');

interface SourceFile {
  path: string;
  text: string;
}

function sources(dir: string, withTests = false): SourceFile[] {
  const out: SourceFile[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = posix.join(dir, name);
    const test = name.endsWith('.test.ts') || name.endsWith('.case.ts');
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path, withTests));
    else if (name.endsWith('.ts') && (withTests || !test))
      out.push({ path, text: readFileSync(join(ROOT, path), 'utf8') });
  }
  return out;
}

function importsOf(text: string): Array<{ spec: string; typeOnly: boolean }> {
  const specs = text.matchAll(/((?:import|export)[^'"`;]*?)from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g);
  return [...specs].map((m) => ({ spec: (m[2] ?? m[3])!, typeOnly: /^(?:import|export) type\b/.test(m[1] ?? '') }));
}

function resolveSpec(file: string, spec: string): string {
  return spec.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), spec)) : spec;
}

const inside = (path: string, dir: string) => path.startsWith(`${dir}/`);
const PACKAGES = ['router', 'simulator', 'harness'] as const;
const INDEX = (pkg: string) => `${pkg}/index.js`;
/** Folders whose decisions must take time and randomness as inputs. */
const PURE = [
  'router/core',
  'simulator/core',
  'simulator/quota',
  'simulator/engine',
  'simulator/vendors',
  'harness/checks',
];
const WALL_CLOCK = [
  'Date.now(',
  'new Date()',
  'performance.now(',
  'Math.random(',
  'setTimeout(',
  'setInterval(',
  'AbortSignal.timeout(',
];
/**
 * The simulated path: everything a run in simulated time executes between the clock and the code
 * under test. It takes time only from the simulated clock; `harness/sim/drive.ts` alone touches
 * the real event loop (to let continuations run between events).
 */
const SIMULATED_PATH = ['harness/sim/', 'bin/in-process-transport.ts', 'router/server/fetch-handler.ts'];
const SIMULATED_LOOP = 'harness/sim/drive.ts';
const REAL_TIME =
  /\b(?:Date\.now|performance\.now|(?<![\w.])setTimeout|(?<![\w.])setInterval|(?<![\w.])setImmediate|globalThis\.set(?:Timeout|Interval|Immediate))\s*\(|new Date\(\s*\)/;
const PROCESS = ['process.argv', 'process.env', 'process.exit', 'process.stdout', 'process.stderr', 'console.log'];
// Sources of separate programs the packages spawn: they touch their own process, never the caller's.
const SEPARATE_PROGRAMS = ['harness/launch/watchdog.ts'];

/** Every wall crossed in `files`, one line each. */
export function findViolations(files: readonly SourceFile[]): string[] {
  const bad: string[] = [];
  for (const { path, text } of files) {
    const pkg = PACKAGES.find((p) => inside(path, p));
    for (const { spec, typeOnly } of importsOf(text)) {
      const target = resolveSpec(path, spec);
      const targetPkg = PACKAGES.find((p) => inside(target, p));
      const say = (rule: string) => bad.push(`${path} -> ${spec}: ${rule}`);
      if (pkg && (inside(target, 'test') || inside(target, 'bin'))) say('production code imports test/ or bin/');
      if (pkg === 'simulator' && targetPkg && targetPkg !== 'simulator') say('the simulator imports only itself');
      if (pkg === 'router' && targetPkg && targetPkg !== 'router') say('the router imports only itself');
      if (pkg === 'harness' && targetPkg === 'router') say('the harness never imports the router (bin/ wires it in)');
      if (pkg === 'harness' && targetPkg === 'simulator' && target !== INDEX('simulator'))
        say('the harness imports the simulator only through simulator/index.ts');
      if (inside(path, 'bin') && targetPkg && target !== INDEX(targetPkg))
        say(`bin/ imports ${targetPkg}/ only through its index.ts`);
      if (inside(path, 'router/core') && !spec.startsWith('node:') && !inside(target, 'router/core'))
        say('router/core imports only router/core');
      if (inside(path, 'router/core') && spec.startsWith('node:') && !typeOnly)
        say('router/core uses no node: runtime module');
    }
    if (pkg && !SEPARATE_PROGRAMS.includes(path))
      for (const api of PROCESS) if (text.includes(api)) bad.push(`${path}: ${api} (only bin/ touches the process)`);
    if (SIMULATED_PATH.some((p) => path.startsWith(p)) && path !== SIMULATED_LOOP) {
      const hit = REAL_TIME.exec(text);
      if (hit) bad.push(`${path}: ${hit[0]} (the simulated path takes time only from the simulated clock)`);
    }
    if (PURE.some((dir) => inside(path, dir)))
      for (const api of WALL_CLOCK)
        if (text.includes(api)) bad.push(`${path}: ${api} (time and randomness are injected)`);
  }
  return bad;
}

describe('architecture', () => {
  const tree = [...PACKAGES, 'bin'].flatMap((dir) => sources(dir));

  it('keeps every wall in the real tree', () => {
    expect(tree.length).toBeGreaterThan(100);
    expect(findViolations(tree)).toEqual([]);
  });

  it('catches each wall crossed once', () => {
    const crossed: SourceFile[] = [
      { path: 'simulator/engine/x.ts', text: "import { runChecks } from '../../harness/index.js';" },
      { path: 'router/engine/x.ts', text: "import { createSimulator } from '../../simulator/index.js';" },
      { path: 'harness/checks/x.ts', text: "import { Router } from '../../router/index.js';" },
      { path: 'harness/load/x.ts', text: "import { sample } from '../../simulator/engine/sample.js';" },
      { path: 'router/core/x.ts', text: "import { ADAPTERS } from '../adapters/registry.js';" },
      { path: 'router/core/y.ts', text: "import { readFileSync } from 'node:fs';" },
      { path: 'bin/commands/x.ts', text: "import { decideCircuits } from '../../router/core/circuit-policy.js';" },
      { path: 'harness/report/x.ts', text: "import { io } from '../../bin/io.js';" },
      { path: 'simulator/quota/x.ts', text: 'export const t = () => Date.now();' },
      { path: 'harness/checks/y.ts', text: 'export const r = () => Math.random();' },
      { path: 'router/core/z.ts', text: 'export const later = () => setTimeout(() => {}, 1);' },
      { path: 'harness/run.ts', text: 'export const argv = process.argv;' },
      { path: 'harness/sim/x.ts', text: 'export const t = () => performance.now();' },
      { path: 'router/server/fetch-handler.ts', text: 'export const later = () => setTimeout(() => {}, 1);' },
      { path: 'bin/in-process-transport.ts', text: 'export const t = () => Date.now();' },
      { path: 'harness/sim/ok.ts', text: 'export const later = (clock) => clock.setTimeout(() => {}, 1);' },
    ];
    const found = findViolations(crossed);
    expect(found).toEqual([
      'simulator/engine/x.ts -> ../../harness/index.js: the simulator imports only itself',
      'router/engine/x.ts -> ../../simulator/index.js: the router imports only itself',
      'harness/checks/x.ts -> ../../router/index.js: the harness never imports the router (bin/ wires it in)',
      'harness/load/x.ts -> ../../simulator/engine/sample.js: the harness imports the simulator only through simulator/index.ts',
      'router/core/x.ts -> ../adapters/registry.js: router/core imports only router/core',
      'router/core/y.ts -> node:fs: router/core uses no node: runtime module',
      'bin/commands/x.ts -> ../../router/core/circuit-policy.js: bin/ imports router/ only through its index.ts',
      'harness/report/x.ts -> ../../bin/io.js: production code imports test/ or bin/',
      'simulator/quota/x.ts: Date.now( (time and randomness are injected)',
      'harness/checks/y.ts: Math.random( (time and randomness are injected)',
      'router/core/z.ts: setTimeout( (time and randomness are injected)',
      'harness/run.ts: process.argv (only bin/ touches the process)',
      'harness/sim/x.ts: performance.now( (the simulated path takes time only from the simulated clock)',
      'router/server/fetch-handler.ts: setTimeout( (the simulated path takes time only from the simulated clock)',
      'bin/in-process-transport.ts: Date.now( (the simulated path takes time only from the simulated clock)',
    ]);
  });

  it('keeps files under about 300 lines unless the file says why at its top', () => {
    const all = [...PACKAGES, 'bin', 'test'].flatMap((dir) => sources(dir, true));
    const long = all
      .filter((f) => f.text.split('\n').length > 320)
      .filter(
        (f) => !/^\/\/ Over 300 lines on purpose: /.test(f.text) && !/^\/\*\* Over 300 lines on purpose: /.test(f.text),
      )
      .map((f) => `${f.path}: ${f.text.split('\n').length} lines`);
    expect(long).toEqual([]);
  });
});
