import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { reportFiles, startCli, until } from '../helpers/cli-process.js';

// A signal while a finished run is judged: judging yields between slices, so SIGTERM ends the
// process within seconds with an INTERRUPTED report that names the checks it did not judge.
// Runs the built CLI (npm test builds first).

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'throttlelab-signals-judging-'));
});

describe('a signal while throttlelab run judges', () => {
  it('exits 143 within seconds on SIGTERM while judging, its report saying what was not judged', async () => {
    // 10,000 requests in 5 s of simulated load, judged for tens of seconds (the goodput oracle's
    // replay): judging was synchronous, and a signal waited for all of it, then reported a verdict.
    const out = join(dir, 'judging-term');
    const cli = startCli(['run', 'test/fixtures/signals/long-judging.yaml', '--time', 'simulated', '--out', out]);
    // The judging phase, from the line that announces it, not a guess at how long the load takes.
    await until(() => /judging \d+ checks/.test(cli.output()), 100_000);
    await new Promise((r) => setTimeout(r, 300));
    const stoppedAt = Date.now();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(143);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(cli.output()).toMatch(/judging stopped by the user: \d+ of 21 checks judged \(no-429, /);
    expect(cli.output()).toMatch(/not judged \(INCONCLUSIVE, never a pass\): .*duplicate-work\n/);
    expect(cli.output()).toMatch(/verdict: INTERRUPTED while judging, after [\d.]+ s, not a pass \(.*\d+ not judged\)/);
    const report = (await reportFiles(out)).reports[0]!;
    expect(report.verdict).toBe('interrupted');
    // The load itself ran to its end: every request was sent and answered.
    expect(report.load).toMatchObject({ interrupted: false, sent: 10_000 });
    const { judged, notJudged } = report.judgingStopped!;
    expect(judged[0]).toBe('no-429');
    expect(notJudged).toContain('duplicate-work');
    expect([...judged, ...notJudged]).toEqual(report.checks.map((c) => c.id));
    for (const c of report.checks.filter((x) => notJudged.includes(x.id)))
      expect(c).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/^not judged: /) });
  }, 150_000);
});
