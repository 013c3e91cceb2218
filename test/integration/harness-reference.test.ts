import { describe, expect, it } from 'vitest';
import { launchCommand } from '../../harness/launch/launch-command.js';
import { launchUrl } from '../../harness/launch/launch-url.js';
import { BROKEN_ROUTERS } from '../fixtures/routers/broken-routers.js';
import { startNaiveRouter } from '../fixtures/routers/naive-router.js';
import { digest, failed, naiveLauncher, runFixture } from '../helpers/harness.js';

// Every fixture is played with the reference router in simulated time (test/spec/reference-fixtures.test.ts):
// the verdicts do not depend on the wall clock. One stays here, streams over real sockets and timers.
const fixtures = ['streams.yaml'];

describe("the reference router against the broken routers' scenarios", () => {
  it.each(fixtures)('passes %s on the wall clock', async (file) => {
    const run = await runFixture(file);
    expect(failed(run.checks), digest(run.checks)).toEqual([]);
    // The run really exercised the router: every request got an answer and the ledger saw them.
    expect(run.outcomes.length).toBeGreaterThan(50);
    expect(run.outcomes.every((o) => o.status !== 0)).toBe(true);
  });
});

describe('routers the harness did not write', () => {
  it('spawns a router command with the providers in its environment, and judges it', async () => {
    const run = await runFixture('429-burst.yaml', (ctx) =>
      launchCommand(
        ctx,
        {
          command: 'node --import tsx test/fixtures/routers/serve.ts passes-429',
          env: {},
          readyPath: '/v1/models',
          startTimeout: 20_000,
        },
        { PATH: process.env.PATH },
      ),
    );
    expect(run.router).toBe('command: node --import tsx test/fixtures/routers/serve.ts passes-429');
    expect(failed(run.checks), digest(run.checks)).toEqual(BROKEN_ROUTERS['passes-429']!.breaks);
  });

  it('reaches a router already running at a URL', async () => {
    let router: Awaited<ReturnType<typeof startNaiveRouter>> | undefined;
    const run = await runFixture('stream-break.yaml', async (ctx) => {
      router = await startNaiveRouter({}, ctx.env);
      return launchUrl(`${router.origin}/v1`);
    });
    await router!.close();
    expect(failed(run.checks), digest(run.checks)).toEqual([]);
    expect(run.checks.find((c) => c.id === 'stream-integrity')!.figure).toMatch(
      /^0 of \d+ streams ended silently \([1-9]\d* ended with an error event\)$/,
    );
  });

  it('reports a router command that never comes up, with its output', async () => {
    const error = await runFixture('hang.yaml', (ctx) =>
      launchCommand(
        ctx,
        { command: 'echo "boom: no config" >&2; exit 3', env: {}, readyPath: '/v1/models', startTimeout: 5000 },
        { PATH: process.env.PATH },
      ),
    ).catch((e: unknown) => e);
    expect(String(error)).toContain('exited with code 3 before answering');
    expect(String(error)).toContain('boom: no config');
  });
});

it('runs the naive router clean (it is the baseline the broken routers deviate from)', async () => {
  const run = await runFixture('429-burst.yaml', naiveLauncher({}));
  expect(failed(run.checks), digest(run.checks)).toEqual([]);
});
