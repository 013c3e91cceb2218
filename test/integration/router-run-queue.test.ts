import { describe, expect, it } from 'vitest';
import { launchCommand } from '../../harness/launch/launch-command.js';
import { createSchedTreeReader, schedstatUnavailable } from '../../harness/launch/read-sched-tree.js';
import { recordRunQueueDelay } from '../../harness/launch/record-run-queue-delay.js';
import type { ProcessWaits } from '../../harness/launch/run-queue-delay.js';
import { runFixture } from '../helpers/harness.js';

// The router under test as a process, the way `--router-cmd` starts it: a `sh -c` under the
// watchdog, running a Node router. Its run-queue delay is read from /proc; no figure here depends
// on how busy the machine is, only on what the kernel's counters must satisfy.
const COMMAND = 'node --import tsx test/fixtures/routers/serve.ts naive';
const launch = (ctx: Parameters<typeof launchCommand>[0]) =>
  launchCommand(
    ctx,
    { command: COMMAND, env: {}, readyPath: '/v1/models', startTimeout: 20_000 },
    { PATH: process.env.PATH },
  );

describe.skipIf(schedstatUnavailable() !== undefined)("a launched router's run-queue delay", () => {
  it("reads the router's process tree, finding the Node process and its threads, with waits that never go down", async () => {
    const router = await launch({ endpoints: [], simOrigin: 'http://127.0.0.1:1', seed: 1, env: {} });
    try {
      const pids = router.pids!();
      expect(pids).toHaveLength(1);
      const read = createSchedTreeReader();
      const recorder = recordRunQueueDelay([pids], { everyMs: 20 });
      const readings: ProcessWaits[][] = [];
      // Keep the router busy between readings: its main thread runs (and may wait) for each answer.
      for (let i = 0; i < 10; i++) {
        readings.push(read(pids));
        await Promise.all(
          Array.from({ length: 20 }, () => fetch(`${router.baseUrl}/models`).then((r) => r.arrayBuffer())),
        );
      }
      readings.push(read(pids));
      const recorded = recorder.stop();

      const node = readings.at(-1)!.find((p) => p.node);
      expect(node, JSON.stringify(readings.at(-1))).toBeDefined();
      expect(node!.threads.some((t) => t.tid === node!.pid)).toBe(true);
      const last = new Map<number, number>();
      for (const reading of readings)
        for (const p of reading)
          for (const t of p.threads) {
            expect(t.waitNs).toBeGreaterThanOrEqual(0);
            expect(t.waitNs).toBeGreaterThanOrEqual(last.get(t.tid) ?? 0);
            last.set(t.tid, t.waitNs);
          }

      expect('delay' in recorded).toBe(true);
      if (!('delay' in recorded)) return;
      const s = recorded.delay.summary();
      expect(s.samples).toBeGreaterThanOrEqual(2);
      expect(s.processes).toBeGreaterThanOrEqual(1);
      expect(s.threads).toBeGreaterThanOrEqual(1);
      expect(s.totalMs).toBeGreaterThanOrEqual(0);
      expect(s.worstWindowMs).toBeGreaterThanOrEqual(0);
      expect(s.worstWindowMs).toBeLessThanOrEqual(s.totalMs + 1e-9);
    } finally {
      await router.stop();
    }
  });

  it('puts the figure in the run it judges', { timeout: 60_000 }, async () => {
    const run = await runFixture('429-burst.yaml', launch);
    const rq = run.routerRunQueue;
    expect(rq && 'samples' in rq, JSON.stringify(rq)).toBe(true);
    if (!rq || !('samples' in rq)) return;
    expect(rq.samples).toBeGreaterThan(2);
    expect(rq.processes).toBeGreaterThanOrEqual(1);
    // The report names what was measured: the Node router, not only the shell that started it.
    expect(rq.executables).toContain('node');
    expect(rq.totalMs).toBeGreaterThanOrEqual(0);
    expect(rq.totalMs).toBeLessThanOrEqual(run.loadEndedAt - run.loadStartedAt);
  });
});
