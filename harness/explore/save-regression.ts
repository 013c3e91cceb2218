import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { expectationsFor, formatExpectation } from './regression-expectations.js';
import type { ScenarioDoc } from './scenario-doc.js';

/** A failure worth keeping: the (shrunk) scenario, its seed, the check it fails and the router that fails it. */
export interface Regression {
  doc: ScenarioDoc;
  seed: number;
  checkId: string;
  /** `reference`, or the name of the router explored (a fixture's name, say). */
  router: string;
  /** How it was found, in a line (the explore command, the original scenario…). */
  note?: string;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The file a regression is saved as: `<scenario-name>-<check>-seed<N>.yaml`. */
export function regressionFileName(r: Pick<Regression, 'doc' | 'seed' | 'checkId'>): string {
  return `${slug(r.doc.name)}-${slug(r.checkId)}-seed${r.seed}.yaml`;
}

/** The file's text: a header saying how it was found, how to replay it and what it must give; then the doc, seed set. */
export function formatRegression(r: Regression, file: string): string {
  const { version, name, description, ...rest } = r.doc;
  const doc = { version, name, ...(description === undefined ? {} : { description }), ...rest, seed: r.seed };
  const header = [
    `# A regression kept by throttlelab explore: check "${r.checkId}" failed for router "${r.router}" at seed ${r.seed},`,
    '# and the scenario was shrunk (fewer faults and providers, shorter and slower load) while it kept failing.',
    ...(r.note ? [`# Found: ${r.note}`] : []),
    `# Replay (the reference router): throttlelab run ${file} --time simulated --seed ${r.seed}`,
    '# npm test replays it (test/regressions/replay.test.ts) and requires:',
    ...expectationsFor(r.router, r.checkId).map(formatExpectation),
  ];
  return `${header.join('\n')}\n${stringify(doc, { lineWidth: 0 })}`;
}

/** Writes a regression into `dir` (made if missing) as `<scenario-name>-<check>-seed<N>.yaml`; returns its path. */
export function saveRegression(dir: string, r: Regression): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, regressionFileName(r));
  writeFileSync(file, formatRegression(r, file));
  return file;
}
