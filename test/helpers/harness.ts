import { join } from 'node:path';
import { referenceLauncher } from '../../bin/reference-launcher.js';
import type { CheckResult } from '../../harness/checks/types.js';
import type { RouterLauncher } from '../../harness/launch/launcher.js';
import type { RunData } from '../../harness/run-data.js';
import { runScenario } from '../../harness/run-scenario.js';
import { loadRunScenarioFile } from '../../harness/scenario/parse-run-scenario.js';
import { startNaiveRouter } from '../fixtures/routers/naive-router.js';
import type { Flaws } from '../fixtures/routers/naive-router-core.js';

export const HARNESS_FIXTURES = join(import.meta.dirname, '../fixtures/harness');

/** A launcher for the naive router with the given flaws, in-process on a free port. */
export function naiveLauncher(flaws: Flaws, name = 'naive'): RouterLauncher {
  return async (ctx) => {
    const r = await startNaiveRouter(flaws, ctx.env);
    return { baseUrl: `${r.origin}/v1`, description: `the ${name} router`, stop: () => r.close() };
  };
}

/** Runs a scenario file (under test/fixtures/harness unless absolute) with its own seed; the reference router unless a launcher is given. */
export async function runFixture(file: string, launcher?: RouterLauncher): Promise<RunData> {
  const path = file.startsWith('/') ? file : join(HARNESS_FIXTURES, file);
  const loaded = await loadRunScenarioFile(path, {});
  if (!loaded.ok) throw new Error(loaded.report);
  return runScenario({
    scenario: loaded.scenario,
    scenarioText: loaded.text,
    scenarioFile: path,
    seed: loaded.scenario.seed ?? 1,
    launcher: launcher ?? referenceLauncher(loaded.scenario),
  });
}

/** The ids of the checks that failed. */
export const failed = (checks: readonly CheckResult[]) => checks.filter((c) => c.verdict === 'fail').map((c) => c.id);

/** A one-line-per-check digest, for failure messages. */
export const digest = (checks: readonly CheckResult[]) =>
  checks
    .map(
      (c) =>
        `${c.id}: ${c.verdict} — ${c.figure}${c.verdict === 'fail' ? ` ${JSON.stringify(c.evidence.slice(0, 2))}` : ''}`,
    )
    .join('\n');
