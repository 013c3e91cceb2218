import { describe, expect, it } from 'vitest';
import { graphCycles } from './helpers/graph-cycles.js';
import { importsOf, isTest, resolveSpec, sources, type SourceFile } from './helpers/source-tree.js';

// The walls between the three products, and the shape that keeps them cheap to change: no import
// cycles, no hub past 400 lines, no error code nothing raises. The same rules run over the real
// tree (no violations) and over a small made-up tree that crosses each wall once (each caught),
// so a rule that can no longer fail is noticed.

const inside = (path: string, dir: string) => path.startsWith(`${dir}/`);
const PACKAGES = ['router', 'simulator', 'harness'] as const;
/**
 * A package's edges: its index and, for what only reads scenario files (`validate`'s cold start),
 * a light scenario entry that loads the parser without the engine, transports or reports.
 */
// The package edges: the whole, and light parts for fast commands (validate, report).
const ENTRIES = (pkg: string) => [`${pkg}/index.js`, `${pkg}/scenario-index.js`, `${pkg}/report-index.js`];
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
      if (pkg === 'harness' && targetPkg === 'simulator' && !ENTRIES('simulator').includes(target))
        say('the harness imports the simulator only through simulator/index.ts (or scenario-index.ts)');
      if (inside(path, 'bin') && targetPkg && !ENTRIES(targetPkg).includes(target))
        say(`bin/ imports ${targetPkg}/ only through its index.ts (or scenario-index.ts)`);
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

/**
 * Every import cycle among `files`, one line each: the shortest way round from the first file of
 * each tangle. Type-only imports count: they vanish at runtime, so they cause no load-order bug,
 * but they still tie two modules into one (neither can be read, moved or tested alone) and a value
 * import is one edit away. Taking the shared type out to a module of its own has always been cheap.
 */
function findCycles(files: readonly SourceFile[]): string[] {
  const known = new Set(files.map((f) => f.path));
  const next = new Map<string, string[]>();
  for (const { path, text } of files) {
    const targets = importsOf(text)
      .filter(({ spec }) => spec.startsWith('.'))
      .map(({ spec }) => resolveSpec(path, spec).replace(/\.js$/, '.ts'))
      .filter((target) => known.has(target));
    next.set(path, [...new Set(targets)].sort());
  }
  return graphCycles(next)
    .map((cycle) => `import cycle: ${cycle.join(' -> ')}`)
    .sort();
}

const MAX_LINES = 400;
/** Where a file over MAX_LINES is a hub regrowing: the router and the simulator's request handling. */
const CAPPED = ['router', 'simulator/engine'];

/** Lines as `wc -l` counts them. */
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/**
 * Source files in the capped folders over MAX_LINES.
 * Tests are left out, as ESLint's function-length rule leaves them out: a table of cases beside a
 * pure decision grows with the cases, which is the point, and the ~300-line rule below still asks
 * a long test to say why at its top.
 */
function findLongFiles(files: readonly SourceFile[]): string[] {
  const bad: string[] = [];
  for (const { path, text } of files) {
    const lines = lineCount(text);
    if (CAPPED.some((dir) => inside(path, dir)) && !isTest(path) && lines > MAX_LINES)
      bad.push(`${path}: ${lines} lines (at most ${MAX_LINES}: split the decisions out)`);
  }
  return bad;
}

/** The files that declare each package's error codes (a `…ErrorCode` union of string literals). */
const ERROR_DECLARATIONS = ['router/core/errors.ts', 'simulator/core/errors.ts', 'harness/errors.ts', 'bin/errors.ts'];

/**
 * Each declared error code that no production file raises (names it as a string literal), and a
 * declaration file the rule cannot read a code from (so a reworded union cannot silence it). All the
 * declaration files are left out of the search, not only the code's own: bin/errors.ts names the
 * packages' codes to classify them, and recognising a code is not raising it.
 */
function findUnraisedCodes(files: readonly SourceFile[]): string[] {
  const raisers = files.filter(
    (f) =>
      [...PACKAGES, 'bin'].some((dir) => inside(f.path, dir)) &&
      !isTest(f.path) &&
      !ERROR_DECLARATIONS.includes(f.path),
  );
  const bad: string[] = [];
  for (const decl of files.filter((f) => ERROR_DECLARATIONS.includes(f.path))) {
    const unions = [...decl.text.matchAll(/export type \w+ErrorCode =([^;]*);/g)];
    const codes = unions.flatMap((union) => [...union[1]!.matchAll(/'([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]!));
    if (codes.length === 0) bad.push(`${decl.path}: no \`export type …ErrorCode = '…' | …;\` to read codes from`);
    for (const code of codes) {
      const literal = new RegExp(`['"]${code}['"]`);
      if (!raisers.some((f) => literal.test(f.text)))
        bad.push(`${decl.path}: ${code} is declared but nothing raises it`);
    }
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
      'harness/load/x.ts -> ../../simulator/engine/sample.js: the harness imports the simulator only through simulator/index.ts (or scenario-index.ts)',
      'router/core/x.ts -> ../adapters/registry.js: router/core imports only router/core',
      'router/core/y.ts -> node:fs: router/core uses no node: runtime module',
      'bin/commands/x.ts -> ../../router/core/circuit-policy.js: bin/ imports router/ only through its index.ts (or scenario-index.ts)',
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

  const everything = [...PACKAGES, 'bin', 'test', 'examples'].flatMap((dir) => sources(dir, true));

  it('has no import cycle in the real tree', () => {
    expect(everything.length).toBeGreaterThan(400);
    expect(findCycles(everything)).toEqual([]);
  });

  it('reports the path of a planted import cycle, through a barrel or a type-only import', () => {
    const planted: SourceFile[] = [
      { path: 'harness/a.ts', text: "import { b } from './b.js';" },
      { path: 'harness/b.ts', text: "import type { C } from './sub/c.js';\nexport const b = 1;" },
      { path: 'harness/sub/c.ts', text: "import { a } from '../a.js';\nexport type C = number;" },
      { path: 'harness/d.ts', text: "import { a } from './a.js';\nimport { gone } from './gone.js';" },
      { path: 'router/index.ts', text: "export { Router } from './router.js';" },
      { path: 'router/router.ts', text: "import { version } from './index.js';" },
      { path: 'bin/self.ts', text: "export const self = () => import('./self.js');" },
    ];
    expect(findCycles(planted)).toEqual([
      'import cycle: bin/self.ts -> bin/self.ts',
      'import cycle: harness/a.ts -> harness/b.ts -> harness/sub/c.ts -> harness/a.ts',
      'import cycle: router/index.ts -> router/router.ts -> router/index.ts',
    ]);
  });

  it('keeps every source file in router/ and simulator/engine/ at 400 lines or fewer', () => {
    expect(findLongFiles(everything)).toEqual([]);
  });

  it('catches a planted 401-line file', () => {
    const lines = (n: number) => 'x;\n'.repeat(n);
    const planted: SourceFile[] = [
      { path: 'router/core/decide.ts', text: lines(401) },
      { path: 'simulator/engine/stage.ts', text: lines(401) },
      { path: 'router/engine/at-cap.ts', text: lines(400) },
      { path: 'router/engine/at-cap.test.ts', text: lines(900) },
      { path: 'simulator/quota/elsewhere.ts', text: lines(900) },
      { path: 'router/router.ts', text: lines(626) },
    ];
    expect(findLongFiles(planted)).toEqual([
      'router/core/decide.ts: 401 lines (at most 400: split the decisions out)',
      'simulator/engine/stage.ts: 401 lines (at most 400: split the decisions out)',
      'router/router.ts: 626 lines (at most 400: split the decisions out)',
    ]);
  });

  it('raises every declared error code somewhere in production code', () => {
    expect(everything.map((f) => f.path)).toEqual(expect.arrayContaining(ERROR_DECLARATIONS));
    expect(findUnraisedCodes(everything)).toEqual([]);
  });

  it('catches a declared error code raised only in a test or classified only by bin/, and an unreadable union', () => {
    const planted: SourceFile[] = [
      { path: 'simulator/core/errors.ts', text: "export type SimErrorCode = 'SIM_A' | 'SIM_B' | 'SIM_C';" },
      { path: 'simulator/x.ts', text: "throw new SimError('SIM_A', 'Failed to x.');" },
      { path: 'simulator/x.test.ts', text: "expect(e.code).toBe('SIM_B');" },
      {
        path: 'bin/errors.ts',
        text: "export type CliErrorCode = 'CLI_A';\nconst USER_SIM_CODES = new Set(['SIM_C']);",
      },
      { path: 'bin/cli.ts', text: 'throw new CliError("CLI_A", \'Failed to parse.\');' },
      { path: 'harness/errors.ts', text: 'export type HarnessErrorCode = string;' },
    ];
    expect(findUnraisedCodes(planted)).toEqual([
      'simulator/core/errors.ts: SIM_B is declared but nothing raises it',
      'simulator/core/errors.ts: SIM_C is declared but nothing raises it',
      "harness/errors.ts: no `export type …ErrorCode = '…' | …;` to read codes from",
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
