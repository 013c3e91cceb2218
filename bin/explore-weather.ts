import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { judgeDoc, randomWeather, saveRegression, shrinkFailure, type ScenarioDoc } from '../harness/index.js';
import type { ExploreFailure, ExploreOptions } from './commands/explore.js';
import { shown } from './explore-sweep.js';
import { simulatedReferenceLauncher } from './reference-launcher.js';

/** `--weather random`: each seed also draws the scenario's faults (harness/explore/weather.ts). */
export function weatherOptions(weather: 'fixed' | 'random'): Pick<ExploreOptions, 'prepare' | 'replayFlags'> {
  if (weather === 'fixed') return {};
  return { prepare: (doc, seed) => randomWeather(doc as ScenarioDoc, seed), replayFlags: '--weather random' };
}

/**
 * `--save <dir>`: each failing (scenario, seed) of the reference router is shrunk while its first
 * failed check keeps failing (fewer faults and providers, shorter and slower load) and written into
 * `dir` as a regression `npm test` replays until the reference passes it.
 */
export function saveFailures(
  dir: string,
  prepare: ExploreOptions['prepare'],
): (failure: ExploreFailure) => Promise<string> {
  return async (f) => {
    const checkId = f.checks[0]!;
    const read = parse(await readFile(f.file, 'utf8')) as ScenarioDoc;
    const doc = (prepare ? prepare(read, f.seed) : read) as ScenarioDoc;
    const judge = async (d: ScenarioDoc, seed: number) => {
      const checks = await judgeDoc(d, seed, simulatedReferenceLauncher);
      return { failed: checks.filter((c) => c.verdict === 'fail').map((c) => c.id) };
    };
    const shrunk = await shrinkFailure({ doc, seed: f.seed, checkId, judge });
    const file = saveRegression(dir, {
      ...shrunk,
      checkId,
      router: 'reference',
      note: `throttlelab explore ${shown(f.file)} --seeds ${f.seed}${prepare ? ' --weather random' : ''}`,
    });
    return `  saved ${shown(file)}: ${f.scenario} seed ${f.seed} ${checkId}, shrunk in ${shrunk.steps} runs`;
  };
}
