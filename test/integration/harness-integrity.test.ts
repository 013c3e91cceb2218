import { describe, expect, it } from 'vitest';
import { TOLERATED_QUIRKS } from '../fixtures/routers/broken-routers.js';
import { digest, failed, naiveLauncher, runFixture } from '../helpers/harness.js';

// Streams are read as clients read them: quirks a client library tolerates are findings, not failures.
describe('quirks a client tolerates pass, with a warning', () => {
  it.each(Object.entries(TOLERATED_QUIRKS))('%s', async (name, quirk) => {
    const run = await runFixture(quirk.scenario, naiveLauncher(quirk.flaws, name));
    expect(failed(run.checks), digest(run.checks)).toEqual([]);
    const streams = run.checks.find((c) => c.id === 'stream-integrity')!;
    expect(streams.verdict).toBe('pass');
    expect(streams.figure).toMatch(quirk.warning);
    // Not vacuous: the streams were read to their end, their content and usage judged.
    for (const id of ['answer-integrity', 'content-integrity', 'usage'] as const)
      expect(run.checks.find((c) => c.id === id)!.verdict, digest(run.checks)).toBe('pass');
    expect(run.outcomes.filter((o) => o.stream && o.streamEnd !== 'silent').length).toBeGreaterThan(30);
  });
});
