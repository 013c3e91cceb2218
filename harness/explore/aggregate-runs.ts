import type { Verdict } from '../checks/types.js';
import type { SeedRun } from './seed-run.js';
import { wilsonInterval } from './wilson-interval.js';

/** A share's 95 % interval (Wilson score), as fractions. */
export interface ShareInterval {
  low: number;
  high: number;
}

/** One check's verdicts over every seed of one scenario. */
export interface CheckTally {
  id: string;
  counts: Record<Verdict, number>;
  /** The pass share over the runs that judged it (skips left out: nothing was judged); none if none did. */
  passShare?: { passes: number; judged: number; interval: ShareInterval };
}

/** A seed that did not pass, and the one line that replays it. */
export interface SeedNote {
  seed: number;
  /** The failed checks with their figures, the inconclusive reasons, or the error. */
  why: string;
  replay: string;
}

/** One scenario over every seed. */
export interface ScenarioTally {
  file: string;
  /** The scenario's name (the file's when no run could read it). */
  scenario: string;
  /** `notRun`: seeds the sweep never reached (stopped, or out of time). */
  runs: { pass: number; fail: number; inconclusive: number; interrupted: number; error: number; notRun: number };
  checks: CheckTally[];
  failing: SeedNote[];
  errors: SeedNote[];
  inconclusive: SeedNote[];
}

/**
 * A sweep's tallies and verdict: FAIL if any run failed a check or broke (a crash, a timeout), else
 * INCONCLUSIVE if any run was, or was stopped or never ran, else PASS.
 */
export interface ExploreSummary {
  seeds: number[];
  scenarios: ScenarioTally[];
  totals: ScenarioTally['runs'] & { runs: number };
  verdict: 'pass' | 'fail' | 'inconclusive';
}

const name = (file: string) => file.replace(/^.*[\\/]/, '').replace(/\.ya?ml$/, '');

/**
 * Tallies a sweep's runs per scenario and per check, in the order of `files` and `seeds` whatever
 * order the runs finished in. `replay` gives the one-line command that reproduces a run.
 */
export function aggregateRuns(
  files: readonly string[],
  seeds: readonly number[],
  runs: readonly SeedRun[],
  replay: (file: string, seed: number) => string,
): ExploreSummary {
  const seedRank = new Map(seeds.map((s, i) => [s, i]));
  const totals = { runs: 0, pass: 0, fail: 0, inconclusive: 0, interrupted: 0, error: 0, notRun: 0 };
  const scenarios = files.map((file): ScenarioTally => {
    const mine = runs
      .filter((r) => r.file === file)
      .sort((a, b) => (seedRank.get(a.seed) ?? Infinity) - (seedRank.get(b.seed) ?? Infinity));
    const tally: ScenarioTally = {
      file,
      scenario: mine.find((r) => r.ok)?.scenario ?? name(file),
      runs: {
        pass: 0,
        fail: 0,
        inconclusive: 0,
        interrupted: 0,
        error: 0,
        notRun: Math.max(0, seeds.length - mine.length),
      },
      checks: [],
      failing: [],
      errors: [],
      inconclusive: [],
    };
    const byId = new Map<string, CheckTally>();
    for (const r of mine) {
      const note = (why: string): SeedNote => ({ seed: r.seed, why, replay: replay(file, r.seed) });
      if (!r.ok) {
        tally.runs.error++;
        tally.errors.push(note(r.error));
        continue;
      }
      tally.runs[r.verdict]++;
      for (const c of r.checks) {
        let t = byId.get(c.id);
        if (!t) byId.set(c.id, (t = { id: c.id, counts: { pass: 0, fail: 0, inconclusive: 0, skip: 0 } }));
        t.counts[c.verdict]++;
      }
      if (r.verdict === 'fail')
        tally.failing.push(
          note(
            r.checks
              .filter((c) => c.verdict === 'fail')
              .map((c) => `${c.id} (${c.figure})`)
              .join('; '),
          ),
        );
      else if (r.verdict !== 'pass') tally.inconclusive.push(note((r.inconclusive ?? [r.verdict]).join('; ')));
    }
    tally.checks = [...byId.values()].map((t) => {
      const judged = t.counts.pass + t.counts.fail + t.counts.inconclusive;
      const interval = wilsonInterval(t.counts.pass, judged);
      return interval ? { ...t, passShare: { passes: t.counts.pass, judged, interval } } : t;
    });
    for (const k of ['pass', 'fail', 'inconclusive', 'interrupted', 'error', 'notRun'] as const)
      totals[k] += tally.runs[k];
    totals.runs += mine.length;
    return tally;
  });
  const verdict =
    totals.fail + totals.error > 0
      ? 'fail'
      : totals.inconclusive + totals.interrupted + totals.notRun > 0
        ? 'inconclusive'
        : 'pass';
  return { seeds: [...seeds], scenarios, totals, verdict };
}
