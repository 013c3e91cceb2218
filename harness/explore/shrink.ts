import { parseRunScenario } from '../scenario/parse-run-scenario.js';
import type { ScenarioDoc } from './scenario-doc.js';
import { shrinkCandidates } from './shrink-candidates.js';

/** What the shrinker asks of a run: the ids of the checks that failed for `doc` at `seed`. */
export type ShrinkJudge = (doc: ScenarioDoc, seed: number) => Promise<{ failed: readonly string[] }>;

/** Options for `shrinkFailure`. */
export interface ShrinkOptions {
  doc: ScenarioDoc;
  seed: number;
  /** The check that must keep failing. */
  checkId: string;
  judge: ShrinkJudge;
  /** Most runs the shrinker may ask for (default 40). */
  maxSteps?: number;
}

/** A shrunk failure: the smallest scenario found that still fails the check at the seed, and the runs it took. */
export interface ShrinkResult {
  doc: ScenarioDoc;
  seed: number;
  steps: number;
}

const DEFAULT_MAX_STEPS = 40;

function validates(doc: ScenarioDoc): boolean {
  // A JSON text is YAML: the harness's own parser (schema and rules) decides what is a scenario.
  return parseRunScenario(JSON.stringify(doc)).ok;
}

/**
 * Minimises a failing (scenario, seed) while `checkId` keeps failing: fewer faults, fewer
 * providers, a shorter and slower load; greedy (the first simplification that still fails is
 * kept, then the search starts over from it) and bounded by `maxSteps` runs.
 *
 * Why not fast-check's shrinker: it shrinks values its own arbitrary generated, along that
 * arbitrary's shrink tree, and a failure may come from a hand-written scenario at a seed as well
 * as from drawn weather; shrinking the drawn faults' numbers (at, for, hint) would spend a
 * simulated run per candidate on changes no reader needs, where removing whole faults, providers
 * and load is what makes a regression readable. The seed stays: it still draws the same jitter.
 * A run that throws (a variant the router cannot start on) counts as not failing.
 */
export async function shrinkFailure(o: ShrinkOptions): Promise<ShrinkResult> {
  const maxSteps = o.maxSteps ?? DEFAULT_MAX_STEPS;
  let doc = o.doc;
  let steps = 0;
  for (let improved = true; improved && steps < maxSteps;) {
    improved = false;
    for (const candidate of shrinkCandidates(doc)) {
      if (steps >= maxSteps) break;
      if (!validates(candidate.doc)) continue;
      steps++;
      const failed = await o.judge(candidate.doc, o.seed).then(
        (r) => r.failed.includes(o.checkId),
        () => false,
      );
      if (failed) {
        doc = candidate.doc;
        improved = true;
        break;
      }
    }
  }
  return { doc, seed: o.seed, steps };
}
