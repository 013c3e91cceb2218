import { statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fleetChoice } from '../../bin/commands/run.js';
import { launcherForReference, thisCli, type CliCommand } from '../../bin/reference-fleet.js';
import type { RunData } from '../../harness/run-data.js';
import { runScenario } from '../../harness/run-scenario.js';
import { loadRunScenarioFile } from '../../harness/scenario/parse-run-scenario.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const FLEET_SCENARIOS = join(ROOT, 'scenarios', 'conformance', 'fleet');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * The CLI replicas are started from: the build when it is newer than every source file (`npm test`
 * builds first; a replica then starts in well under a second), else the sources through tsx.
 */
export function replicaCli(): CliCommand {
  const built = join(ROOT, 'dist', 'bin', 'throttlelab.js');
  try {
    const builtAt = statSync(built).mtimeMs;
    if (['router', 'simulator', 'harness', 'bin'].every((d) => newest(join(ROOT, d)) <= builtAt))
      return { argv: [process.execPath, built], cwd: ROOT };
  } catch {
    // not built
  }
  return thisCli();
}

/**
 * Runs a fleet scenario file with the reference router's replicas, optionally with another store.
 * `lagMs` is the worst event-loop stall of this (the harness's) process during the run: on a busy
 * machine every process, replicas included, stalls about as long, and news between replicas is
 * held back by it.
 */
export async function runFleetScenario(
  file: string,
  store?: 'memory' | 'redis',
): Promise<RunData & { notes: string[]; lagMs: number }> {
  const path = file.startsWith('/') ? file : join(FLEET_SCENARIOS, file);
  const loaded = await loadRunScenarioFile(path, {});
  if (!loaded.ok) throw new Error(loaded.report);
  const notes: string[] = [];
  const scenario = fleetChoice(loaded.scenario, { store }, (l) => notes.push(l));
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const data = await runScenario({
    scenario,
    scenarioText: loaded.text,
    scenarioFile: path,
    seed: scenario.seed ?? 1,
    launcher: launcherForReference(scenario, { PATH: process.env.PATH }, replicaCli()),
  });
  lag.disable();
  return { ...data, notes, lagMs: lag.max / 1e6 };
}
