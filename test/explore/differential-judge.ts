import type { RunScenario, SimulatedRouterLauncher } from '../../harness/index.js';
import { judgeDoc } from '../../harness/explore/judge-doc.js';
import type { ScenarioDoc } from '../../harness/explore/scenario-doc.js';
import type { ShrinkJudge } from '../../harness/explore/shrink.js';
import { simulatedReferenceLauncher } from '../../bin/reference-launcher.js';

type Launcher = (scenario: RunScenario) => SimulatedRouterLauncher;

/** The ids of the checks `launcher` FAILs on `doc` at `seed`. */
async function failedChecks(doc: ScenarioDoc, seed: number, launcher: Launcher): Promise<string[]> {
  return (await judgeDoc(doc, seed, launcher)).filter((c) => c.verdict === 'fail').map((c) => c.id);
}

/**
 * A judge for a broken router: a check counts as failed only where `subject` FAILs it and the
 * reference router PASSes it in the same world at the same seed, so that the defect is the
 * router's and not the world's (a world where nobody can serve leaves the reference with nothing
 * to judge, and a shrink must not end there).
 */
export function differentialJudge(subject: Launcher): ShrinkJudge {
  return async (doc, seed) => {
    const failed = await failedChecks(doc, seed, subject);
    if (failed.length === 0) return { failed };
    const reference = await judgeDoc(doc, seed, simulatedReferenceLauncher);
    const passed = new Set<string>(reference.filter((c) => c.verdict === 'pass').map((c) => c.id));
    return { failed: failed.filter((id) => passed.has(id)) };
  };
}
