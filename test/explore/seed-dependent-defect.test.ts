import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { randomWeather } from '../../harness/explore/weather.js';
import { shrinkFailure } from '../../harness/explore/shrink.js';
import { saveRegression } from '../../harness/explore/save-regression.js';
import type { ScenarioDoc } from '../../harness/explore/scenario-doc.js';
import { longWaitAs503Launcher } from '../fixtures/weather/long-wait-as-503.js';
import { expectationsOf, replayRegression } from '../regressions/replay-regression.js';
import { differentialJudge } from './differential-judge.js';

const BASE = parse(
  readFileSync(join(import.meta.dirname, '../fixtures/weather/calm-three.yaml'), 'utf8'),
) as ScenarioDoc;
const CHECK = 'retry-after';
const MAX_SEEDS = 40;
const dir = mkdtempSync(join(tmpdir(), 'throttlelab-explore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a router whose defect only some weather shows', () => {
  it(
    'is found over random-weather seeds, shrunk to one fault and two providers, saved and replayed',
    { timeout: 120_000 },
    async () => {
      const judge = differentialJudge(longWaitAs503Launcher);
      // The calm scenario itself shows nothing: the defect needs weather.
      expect((await judge(BASE, 1)).failed).not.toContain(CHECK);
      let seed = 1;
      while (seed <= MAX_SEEDS && !(await judge(randomWeather(BASE, seed), seed)).failed.includes(CHECK)) seed++;
      expect(seed, `no seed of 1..${MAX_SEEDS} shows the defect`).toBeLessThanOrEqual(MAX_SEEDS);

      const shrunk = await shrinkFailure({ doc: randomWeather(BASE, seed), seed, checkId: CHECK, judge, maxSteps: 30 });
      expect(shrunk.doc.faults?.length).toBeLessThanOrEqual(1);
      expect(shrunk.doc.providers.length).toBeLessThanOrEqual(2);
      expect((await judge(shrunk.doc, seed)).failed).toContain(CHECK);

      const file = saveRegression(dir, { doc: shrunk.doc, seed, checkId: CHECK, router: 'long-wait-as-503' });
      const verdicts = [];
      for (const e of expectationsOf(file)) verdicts.push(await replayRegression(file, e));
      expect(verdicts.map((v) => `${v.expectation.router} ${v.check?.verdict}`)).toEqual([
        'long-wait-as-503 fail',
        'reference pass',
      ]);
    },
  );
});
