import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadRunScenarioFile,
  runSimulatedScenario,
  type RunScenario,
  type SimulatedRouterLauncher,
} from '../../harness/index.js';
import type { CheckId } from '../../harness/scenario/schema.js';
import { deafToAborts, hedgingEverything, shunning, slowToNoticeFailure } from '../fixtures/broken/failover.js';
import { referenceWith } from '../fixtures/broken/reference-with.js';
import { limit } from '../helpers/limit.js';

const ROOT = join(import.meta.dirname, '../..');

/** Other ways to break DL-* and FO-* than their clause breakers: each must fail the clause's check. */
const VARIANTS: Array<{
  name: string;
  check: CheckId;
  scenario: string;
  launcher: (s: RunScenario) => SimulatedRouterLauncher;
  /** A seed other than the scenario's, where the defect shows (see the variant). */
  seed?: number;
}> = [
  {
    name: 'DL-1: sends no abort upstream, so it waits on a hanging provider past its attempt timeout',
    check: 'deadline',
    scenario: 'scenarios/conformance/05-hanging-provider.yaml',
    launcher: referenceWith({ transport: deafToAborts() }, 'waits on hanging attempts'),
  },
  {
    name: 'FO-1: hears of each failure 600 ms late (a failed answer held before it is read)',
    check: 'failover-latency',
    scenario: 'scenarios/conformance/05-hanging-provider.yaml',
    launcher: referenceWith({ transport: slowToNoticeFailure(600) }, 'holds each failure 600 ms'),
    // Groq's resets are what it holds; since the router explores, at seeds 1, 5 and 6 too few
    // requests meet one to lift the p99 past the hang's 1 s timeouts (issue 22: seed-dependent).
    seed: 2,
  },
  {
    name: 'FO-2: never waits for a window (retry.maxWait 0): 503 at once though a wait ends in time',
    check: 'no-needless-error',
    scenario: 'scenarios/conformance/03-all-exhausted.yaml',
    launcher: referenceWith({ config: { retry: { maxWait: 0 } } }, 'never waits for capacity'),
  },
  {
    name: 'FO-2: no retry budget at all: a failed attempt is answered 503 instead of failed over',
    check: 'no-needless-error',
    scenario: 'test/fixtures/harness/server-errors.yaml',
    launcher: referenceWith({ config: { retry: { budget: { ratio: 0, minPerWindow: 0 } } } }, 'has no retry budget'),
  },
  {
    name: 'FO-2: an attempt timeout as long as the deadline: a hanging provider eats the whole budget',
    check: 'no-needless-error',
    scenario: 'scenarios/conformance/05-hanging-provider.yaml',
    launcher: referenceWith(
      { config: { attempt: { timeout: 30_000, firstTokenTimeout: 30_000, leaveRoomToFailOver: false } } },
      'waits on one attempt as long as the deadline',
    ),
  },
  {
    name: 'FO-3: hedges every attempt (sends each twice)',
    check: 'amplification',
    scenario: 'scenarios/conformance/04-overload-storm.yaml',
    launcher: referenceWith({ transport: hedgingEverything() }, 'sends every attempt twice'),
  },
  {
    name: 'FO-4: shuns a provider for the rest of the run once it answered 429',
    check: 'recovery',
    scenario: 'scenarios/conformance/13-recovery.yaml',
    launcher: referenceWith({ transport: shunning((s) => s === 429) }, 'shuns a provider after a 429'),
  },
  {
    name: 'FO-4: shuns a provider for the rest of the run once it answered a 5xx',
    check: 'recovery',
    scenario: 'scenarios/conformance/13-recovery.yaml',
    launcher: referenceWith({ transport: shunning((s) => s >= 500) }, 'shuns a provider after a 5xx'),
  },
];

const two = limit(2);

describe('other broken routers fail the DL and FO clauses’ checks (simulated time)', () => {
  it.concurrent.each(VARIANTS.map((v) => [v.name, v] as const))('%s', { timeout: 180_000 }, async (_, v) => {
    const file = join(ROOT, v.scenario);
    const loaded = await loadRunScenarioFile(file, {});
    if (!loaded.ok) throw new Error(loaded.report);
    const { checks } = await two(() =>
      runSimulatedScenario({
        scenario: loaded.scenario,
        scenarioText: loaded.text,
        scenarioFile: file,
        seed: v.seed ?? loaded.scenario.seed ?? 1,
        launcher: v.launcher(loaded.scenario),
      }),
    );
    const judged = checks.find((c) => c.id === v.check);
    expect(judged?.verdict, `${v.check}: ${judged?.figure}`).toBe('fail');
  });
});
