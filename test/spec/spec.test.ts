import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunScenarioFile } from '../../harness/index.js';
import { CHECK_IDS } from '../../harness/scenario/schema.js';
import { CLAUSES } from '../../harness/spec/clauses.js';
import { BREAKERS } from '../fixtures/broken/index.js';
import { limit } from '../helpers/limit.js';
import { readSpec } from './read-spec.js';
import { digestChecks, judgeScenario } from './judge-pack.js';

const PACK = join(import.meta.dirname, '../../scenarios/conformance');
const written = readSpec();
const packFile = (name: string) => join(PACK, `${name}.yaml`);

describe('docs/spec.md: every clause has a check, a forcing scenario and a broken router', () => {
  it('writes every clause of harness/spec/clauses.ts, in order, with the same title, level and check', () => {
    expect(written.length).toBeGreaterThan(0);
    expect(written.map((c) => ({ id: c.id, title: c.title, level: c.level, check: c.judgedBy }))).toEqual(
      CLAUSES.map((c) => ({ id: c.id, title: c.title, level: c.level, check: c.check })),
    );
  });

  it.each(written.map((c) => [c.id, c] as const))(
    '%s names a check, a pack scenario that runs it, a broken router and sources',
    async (_, c) => {
      expect(CHECK_IDS, `${c.id}: Judged by`).toContain(c.judgedBy);
      expect(c.forcedBy, `${c.id}: Forced by`).not.toBeNull();
      expect(existsSync(packFile(c.forcedBy!)), `${c.id}: scenarios/conformance/${c.forcedBy}.yaml`).toBe(true);
      const loaded = await loadRunScenarioFile(packFile(c.forcedBy!), {});
      if (!loaded.ok) throw new Error(loaded.report);
      const { checks, skip } = loaded.scenario.expect;
      expect(
        (checks ?? CHECK_IDS).includes(c.judgedBy as never) && !skip.includes(c.judgedBy as never),
        `${c.id}: ${c.forcedBy} runs ${c.judgedBy}`,
      ).toBe(true);
      expect(c.brokenRouter, `${c.id}: Broken router`).not.toBeNull();
      expect(BREAKERS[c.brokenRouter!]?.clause, `${c.id}: test/fixtures/broken names ${c.brokenRouter} for it`).toBe(
        c.id,
      );
      expect(c.sources, `${c.id}: Sources`).toMatch(/https?:\/\//);
    },
  );

  it("is listed in the README's clause table as the spec writes it", () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const rows = readme.split('\n').filter((l) => /^\| [A-Z]+-\d+ \| /.test(l));
    expect(rows).toEqual(
      written.map(
        (c) => `| ${c.id} | ${c.level} | ${c.title} | \`${c.judgedBy}\` | \`${c.forcedBy}\` | \`${c.brokenRouter}\` |`,
      ),
    );
  });

  it('has no broken router that no clause names', () => {
    const named = new Set(written.map((c) => c.brokenRouter));
    expect(Object.keys(BREAKERS).filter((n) => !named.has(n))).toEqual([]);
  });
});

// Simulated time: each run is a discrete-event replay, so a verdict here is the same on any
// machine however busy. Two runs at once share the CPU while they await the next event.
const two = limit(2);

// The reference's half: test/integration/simulated-run.test.ts plays every scenario of the pack
// (each clause's forcing scenario is one, checked above) at its seed and requires every check to
// pass there, so it is not run a second time here.
describe('each broken router fails exactly its clause’s check on the forcing scenario', () => {
  it.concurrent.each(written.map((c) => [c.id, c] as const))('%s', { timeout: 180_000 }, async (_, c) => {
    const broken = BREAKERS[c.brokenRouter!]!;
    const checks = await two(() => judgeScenario(c.forcedBy!, broken.launcher));
    const failed = checks.filter((r) => r.verdict === 'fail');
    expect(
      failed.map((r) => r.id),
      `${c.brokenRouter}: ${broken.why}\n${digestChecks(checks)}`,
    ).toEqual(checks.map((r) => r.id).filter((id) => id === c.judgedBy || id in (broken.alsoFails ?? {})));
    expect(failed.find((r) => r.id === c.judgedBy)!.evidence.length).toBeGreaterThan(0);
  });
});
