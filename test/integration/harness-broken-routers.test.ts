import { describe, expect, it } from 'vitest';
import { BROKEN_ROUTERS, type BrokenRouter } from '../fixtures/routers/broken-routers.js';
import { digest, failed, naiveLauncher, runFixture } from '../helpers/harness.js';
import { limit } from '../helpers/limit.js';

// Each broken router has exactly one defect; the checks it breaks must fail and every other check
// must hold, so that a verdict points at the defect and nothing else. The reference router passes
// the same scenarios in test/spec/reference-fixtures.test.ts (simulated time).
async function judge(name: string, broken: BrokenRouter) {
  const run = await runFixture(broken.scenario, naiveLauncher(broken.flaws, name));
  expect(failed(run.checks), `${broken.why}\n${digest(run.checks)}`).toEqual(broken.breaks);
  for (const id of broken.breaks) expect(run.checks.find((c) => c.id === id)!.evidence.length).toBeGreaterThan(0);
}

// A timing check's failure within the harness's own lag is INCONCLUSIVE, not FAIL. The herd of a
// released queue reaches the providers a first byte (400 ms in all-limited.yaml) ahead of its
// answer, the smallest of these margins: that router runs alone, with no other run loading this
// process.
const ALONE = ['releases-queue'];

// The others fail by counts (429s, keys, tokens, content) or by timing margins of half a second
// and more (a second-long sleep, a deadline missed by seconds, retries seconds early), which the
// lag of two runs at once does not reach. Each run mostly waits on its scenario's clock, so they
// share the wall clock, two at a time (the others wait their turn: hence the long timeout).
const two = limit(2);
const together = Object.entries(BROKEN_ROUTERS).filter(([name]) => !ALONE.includes(name));
const alone = Object.entries(BROKEN_ROUTERS).filter(([name]) => ALONE.includes(name));

describe('broken routers fail exactly the checks they break', () => {
  it.concurrent.each(together)('%s', { timeout: 120_000 }, async (name, broken) => {
    await two(() => judge(name, broken));
  });

  it.each(alone)('%s', async (name, broken) => {
    await judge(name, broken);
  });
});
