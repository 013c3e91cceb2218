import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulatedReferenceLauncher } from '../../bin/reference-launcher.js';
import { buildReport } from '../../harness/report/build-report.js';
import { renderHtml } from '../../harness/report/render-html.js';
import { renderVerdictTable } from '../../harness/report/render-text.js';
import type { RunData } from '../../harness/run-data.js';
import { loadRunScenarioFile } from '../../harness/scenario/parse-run-scenario.js';
import { runSimulatedScenario } from '../../harness/sim/run-simulated.js';

const FILE = join(import.meta.dirname, '..', '..', 'scenarios', 'cache-affinity.yaml');

/**
 * Runs the shipped scenario with cache affinity on or off, everything else equal, in simulated
 * time: what is compared is what affinity does to the cache and the ITPM, not the wall clock.
 */
async function run(cacheAffinity: boolean): Promise<RunData> {
  const loaded = await loadRunScenarioFile(FILE, {});
  if (!loaded.ok) throw new Error(loaded.report);
  const scenario = loaded.scenario;
  if (scenario.router.kind !== 'reference') throw new Error('expected the reference router');
  scenario.router.config = { ...scenario.router.config, cacheAffinity };
  return runSimulatedScenario({
    scenario,
    scenarioText: loaded.text,
    scenarioFile: FILE,
    seed: scenario.seed ?? 1,
    launcher: simulatedReferenceLauncher(scenario),
  });
}

const served = (d: RunData) => d.outcomes.filter((o) => o.status === 200).length;

describe('scenarios/cache-affinity.yaml', () => {
  it('serves more requests under the same ITPM with cache affinity than without', async () => {
    const on = await run(true);
    const off = await run(false);
    const reportOn = buildReport(on);
    const reportOff = buildReport(off);
    const cacheOn = reportOn.series.providers[0]!.cache!;
    const cacheOff = reportOff.series.providers[0]!.cache!;
    const figures = `on: ${served(on)}/${on.outcomes.length} served, ${JSON.stringify(cacheOn)}\noff: ${served(off)}/${off.outcomes.length} served, ${JSON.stringify(cacheOff)}`;
    // The same seeded load either way.
    expect(on.outcomes.length, figures).toBe(off.outcomes.length);
    // Directions, not figures: affinity writes prefixes less often per answer, hits the cache more, serves more.
    expect(cacheOn.writeTokens / cacheOn.answered, figures).toBeLessThan(cacheOff.writeTokens / cacheOff.answered);
    expect(cacheOn.hitRate, figures).toBeGreaterThan(cacheOff.hitRate);
    expect(served(on), figures).toBeGreaterThan(served(off));
    // The report says so per provider.
    expect(renderVerdictTable(reportOn)).toMatch(/prompt cache: anthropic \d+% of \d+ answers hit the prompt cache/);
    expect(renderHtml([reportOn])).toMatch(/prompt cache: anthropic \d+% of \d+ answers hit the prompt cache/);
  });
});
