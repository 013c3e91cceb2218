import type { SeedRun } from './seed-run.js';

/** One seed over every scenario: what `conform --seeds` prints a line for. */
export interface SeedVerdict {
  seed: number;
  verdict: 'pass' | 'fail' | 'inconclusive';
  passed: number;
  /** Scenarios run at this seed (a seed the sweep never reached in full is inconclusive). */
  ran: number;
  /** `<scenario>: <check> (<figure>)` for each failed check, `<scenario>: error: …` for each broken run. */
  problems: string[];
  /** `<scenario>: <reason>` for each inconclusive run. */
  unsure: string[];
}

/**
 * Each seed's verdict over a pack: FAIL if any scenario failed a check or broke at it, else
 * INCONCLUSIVE if any was (or did not run), else PASS. Seeds in the order given.
 */
export function seedVerdicts(seeds: readonly number[], scenarios: number, runs: readonly SeedRun[]): SeedVerdict[] {
  return seeds.map((seed) => {
    const mine = runs.filter((r) => r.seed === seed);
    const problems: string[] = [];
    const notes: string[] = [];
    let passed = 0;
    let unsure = mine.length < scenarios;
    for (const r of mine) {
      if (!r.ok) problems.push(`${r.file.replace(/^.*[\\/]/, '')}: error: ${r.error}`);
      else if (r.verdict === 'pass') passed++;
      else if (r.verdict === 'fail')
        for (const c of r.checks.filter((x) => x.verdict === 'fail'))
          problems.push(`${r.scenario}: ${c.id} (${c.figure})`);
      else {
        unsure = true;
        notes.push(`${r.scenario}: ${(r.inconclusive ?? [r.verdict]).join('; ')}`);
      }
    }
    const verdict = problems.length > 0 ? 'fail' : unsure ? 'inconclusive' : 'pass';
    return { seed, verdict, passed, ran: mine.length, problems, unsure: notes };
  });
}
