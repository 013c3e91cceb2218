import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildReport, loadRunScenarioFile, runSimulatedScenario, type SimulatedProgress } from '../../harness/index.js';
import { simulatedReferenceLauncher } from '../../bin/reference-launcher.js';
import { cli } from '../helpers/cli.js';

// Progress in simulated time: simulated time done of the load's, reported every few thousand
// events, never changing what the run does. The wall clock of the CLI's progress is a fake that
// moves 1 s at each reading, so the lines appear whatever the machine's speed.
const QUICKSTART = 'scenarios/quickstart.yaml';
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const withoutTimestamp = (text: string) => text.replace(/"startedAt": ?"[^"]*"/g, '"startedAt":"-"');

async function simulate(onProgress?: (p: SimulatedProgress) => void) {
  const loaded = await loadRunScenarioFile(QUICKSTART, {});
  if (!loaded.ok) throw new Error(loaded.report);
  const data = await runSimulatedScenario({
    scenario: loaded.scenario,
    scenarioText: loaded.text,
    scenarioFile: QUICKSTART,
    seed: 3,
    launcher: simulatedReferenceLauncher(loaded.scenario),
    startAt: Date.UTC(2026, 0, 1),
    wallStartedAt: Date.UTC(2026, 0, 1),
    ...(onProgress ? { onProgress } : {}),
  });
  return { data, report: withoutTimestamp(JSON.stringify(buildReport(data))) };
}

describe('progress of a simulated run', () => {
  it("reports simulated time done of the load's, rising to its end, and the run is the same without it", async () => {
    const seen: SimulatedProgress[] = [];
    const watched = await simulate((p) => seen.push(p));
    expect(seen.length).toBeGreaterThan(1);
    const total = watched.data.scenario.load!.duration;
    expect(seen.every((p) => p.totalMs === total && p.doneMs >= 0 && p.doneMs <= total)).toBe(true);
    expect(
      seen.every((p, i) => i === 0 || (p.doneMs >= seen[i - 1]!.doneMs && p.attempts >= seen[i - 1]!.attempts)),
    ).toBe(true);
    expect(seen.at(-1)!.doneMs).toBeGreaterThan(total / 2);
    expect((await simulate()).report).toBe(watched.report);
  });

  it('prints progress lines with an ETA to stderr on a long run, and none with --quiet', async () => {
    const out = await mkdtemp(join(tmpdir(), 'tl-progress-'));
    dirs.push(out);
    let wall = 0;
    const now = () => (wall += 1000);
    const args = ['run', QUICKSTART, '--time', 'simulated', '--seed', '3', '--out', out];
    const loud = await cli(args, { now });
    expect(loud.code).not.toBe(2);
    const lines = loud.err.filter((l) => l.includes('eta'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toMatch(/^ {2}simulated \d+ s of 25 s, \d+ attempts \(\d+ %\), \d+ s wall, eta \d+ s$/);
    expect(loud.out.join('\n')).not.toContain('eta');
    wall = 0;
    const quiet = await cli([...args, '--quiet'], { now });
    expect(quiet.code).toBe(loud.code);
    expect(quiet.err).toEqual([]);
  });
});
