import { describe, expect, it } from 'vitest';
import { BROKEN_ROUTERS } from '../fixtures/routers/broken-routers.js';
import { digest, failed, naiveLauncher, runFixture } from '../helpers/harness.js';

// Each broken router has exactly one defect; the checks it breaks must fail and every other check
// must hold, so that a verdict points at the defect and nothing else. The reference router passes
// the same scenarios in harness-reference.test.ts.
describe('broken routers fail exactly the checks they break', () => {
  it.each(Object.entries(BROKEN_ROUTERS))('%s', async (name, broken) => {
    const run = await runFixture(broken.scenario, naiveLauncher(broken.flaws, name));
    expect(failed(run.checks), `${broken.why}\n${digest(run.checks)}`).toEqual(broken.breaks);
    for (const id of broken.breaks) expect(run.checks.find((c) => c.id === id)!.evidence.length).toBeGreaterThan(0);
  });
});
