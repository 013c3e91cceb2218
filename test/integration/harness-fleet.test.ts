import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../harness/checks/run-checks.js';
import { schedstatUnavailable } from '../../harness/launch/read-sched-tree.js';
import type { CheckResult } from '../../harness/checks/types.js';
import type { RunData } from '../../harness/run-data.js';
import { digest, failed } from '../helpers/harness.js';
import { runFleetScenario } from '../helpers/fleet.js';
import { isStarvedTimingFail, measuredStarvationMs } from '../helpers/starved-timing-fail.js';

// The fleet group of the conformance pack: three reference-router replicas, each a process of its
// own, judged as one router from the simulator's ledger (the providers see every replica). These
// runs take 7 to 13 s of load each.

/** The scenario's in-flight grace: the fleet's propagation bound. */
const GRACE_MS = 100;
/** The most a re-check widens it to: an attempt a second into a wait is not news arriving late. */
const MAX_GRACE_MS = 1000;

/**
 * The widened in-flight grace a FAIL of retry-after or single-probe is checked again with: the
 * scenario's 100 ms plus the worst starvation the run measured (this process's longest stall, or
 * the harness's plus the replicas' worst window of waiting for a CPU: `measuredStarvationMs`),
 * at most 1 s. On a machine too busy to run the replicas on time, news of a wait reaches them
 * late by about that much; that is the machine, not the router. On a quiet machine it is the
 * scenario's grace and a few ms.
 */
const graceOf = (run: RunData & { lagMs: number }) =>
  Math.min(MAX_GRACE_MS, Math.ceil(GRACE_MS + Math.max(run.lagMs, measuredStarvationMs(run))));

/** The checks, with retry-after and single-probe judged again at `graceOf(run)`. */
function rechecked(run: RunData & { lagMs: number }): CheckResult[] {
  const retryAfter = { ...run.scenario.expect.retryAfter, inFlightGrace: graceOf(run) };
  const input = {
    outcomes: run.outcomes,
    rows: run.rows,
    scenario: { ...run.scenario, expect: { ...run.scenario.expect, retryAfter } },
    startedAt: run.startedAt,
  };
  return run.checks.map((c) => (c.id === 'retry-after' || c.id === 'single-probe' ? CHECKS[c.id](input) : c));
}

/**
 * The checks, where a FAIL stands only if the machine does not explain it: retry-after and
 * single-probe stand only if they fail again at the widened grace (`rechecked`); any other timing
 * check stands beyond the starvation the run measured (`isStarvedTimingFail`) and is inconclusive
 * within it. Every other verdict, and every FAIL of a count, key or content, is the run's.
 */
function judged(run: RunData & { lagMs: number }): CheckResult[] {
  const again = rechecked(run);
  return run.checks.map((c, i) => {
    if (c.verdict !== 'fail') return c;
    if (c.id === 'retry-after' || c.id === 'single-probe') return again[i]!;
    if (!isStarvedTimingFail(c, run)) return c;
    const reason = `timing: within the ${Math.round(measuredStarvationMs(run))} ms of starvation the run measured`;
    return { ...c, verdict: 'inconclusive', reason };
  });
}

/** The judged checks, and the grace and starvation they were judged with, for a failure's message. */
const explain = (run: RunData & { lagMs: number }) =>
  `${digest(judged(run))}\nwidened grace ${graceOf(run)} ms (this process's longest stall ${Math.round(run.lagMs)} ms, measured starvation ${Math.round(measuredStarvationMs(run))} ms)`;

/**
 * For every wait a provider announced: which replica was told, which replicas had client requests
 * while it lasted, how many attempts reached its scope inside it (after `graceMs` for attempts
 * already on their way), and how many arrived at its end before the first answer (the herd).
 */
function waits(run: RunData, graceMs: number) {
  const replicaOf = new Map(run.outcomes.map((o) => [o.id, o.replica]));
  const chat = run.rows.filter((r) => r.endpoint === 'chat');
  const scope = (r: (typeof chat)[number]) => `${r.provider}/${r.key}/${r.model}`;
  return chat
    .filter((w) => w.hintMs !== null && w.hintMs > 0 && w.firstByteAt !== null)
    .map((w) => {
      const start = w.firstByteAt!;
      const end = start + w.hintMs!;
      const same = chat.filter((r) => scope(r) === scope(w)).sort((a, b) => a.arrivalAt - b.arrivalAt);
      const after = same.filter((r) => r.arrivalAt >= end - 10);
      const firstAnswer = after[0]?.firstByteAt ?? Infinity;
      return {
        told: replicaOf.get(w.correlationId ?? ''),
        busyReplicas: new Set(run.outcomes.filter((o) => o.sentAt > start && o.sentAt < end).map((o) => o.replica))
          .size,
        inside: same.filter((r) => r.seq !== w.seq && r.arrivalAt > start + graceMs && r.arrivalAt < end - 10).length,
        herd: after.filter((r) => r.arrivalAt < firstAnswer).length,
        judgedEnd: after.length > 0,
      };
    });
}

/** Which 429 faults met an attempt, and the announced waits the ledger holds. */
function exercise(run: RunData): string {
  const faults = (run.faults ?? []).filter((f) => f.kind === 'status').map((f) => `${f.id} matched ${f.matched}`);
  const hinted = run.rows.filter((r) => r.endpoint === 'chat' && r.hintMs !== null && r.hintMs > 0);
  const shown = hinted.map(
    (r) => `${r.status} at ${Math.round(r.arrivalAt - run.startedAt)} ms, head ${r.firstByteAt !== null}`,
  );
  return `${faults.join(', ')}; waits: ${shown.join('; ') || 'none'}`;
}

const exercised = (run: RunData) =>
  (run.faults ?? []).every((f) => f.kind !== 'status' || f.matched > 0) &&
  run.rows.filter((r) => r.endpoint === 'chat' && r.hintMs !== null && r.hintMs > 0 && r.firstByteAt !== null)
    .length === 2;

const verdictOf = (checks: readonly CheckResult[], id: string) => checks.find((c) => c.id === id)?.verdict;

describe('three reference-router replicas sharing state through Redis, judged as one router', () => {
  it('keeps every replica out of a wait one replica was told of, and sends one probe when it ends', async () => {
    const run = await runFleetScenario('01-429-burst-one-replica.yaml');
    expect(failed(judged(run)), explain(run)).toEqual([]);
    const [w, ...more] = waits(run, graceOf(run));
    expect(more).toEqual([]);
    expect(w).toMatchObject({ inside: 0, herd: 1, judgedEnd: true, busyReplicas: 3 });
    expect(run.outcomes.every((o) => o.status === 200)).toBe(true);
    expect(new Set(run.outcomes.map((o) => o.replica))).toEqual(new Set([0, 1, 2]));
    expect(run.routerLogs).toHaveLength(3);
  });

  it('holds the quiet replicas too when one replica takes most of the traffic, and probes once', async () => {
    const run = await runFleetScenario('02-window-end-under-load.yaml');
    expect(failed(judged(run)), explain(run)).toEqual([]);
    const all = waits(run, graceOf(run));
    expect(all.length).toBeGreaterThanOrEqual(1);
    for (const w of all) expect(w).toMatchObject({ inside: 0, busyReplicas: 3 });
    expect(all.some((w) => w.judgedEnd && w.herd === 1)).toBe(true);
    expect(run.fleet).toMatchObject({ spread: 'skewed', skew: 0.8 });
    expect(run.fleet!.requests![0]).toBeGreaterThan(run.fleet!.requests![1]! + run.fleet!.requests![2]!);
  });

  it('costs no client request while Redis is down for 5 s, and shares again once it is back', async () => {
    // Both 429 faults must meet an attempt: one that met none (a replica whose lease request was
    // lost with the link kept the scope closed to itself for good) leaves "shares again" unjudged.
    const run = await runFleetScenario('03-redis-down.yaml');
    expect(exercised(run), exercise(run)).toBe(true);
    expect(failed(judged(run)), explain(run)).toEqual([]);
    expect(run.outcomes.filter((o) => o.status !== 200)).toEqual([]);
    const [down] = run.fleet!.redisFaults;
    expect(down).toMatchObject({ id: 'redis-down', mode: 'down' });
    expect(down!.ended! - down!.began!).toBeGreaterThanOrEqual(5000);
    const all = waits(run, graceOf(run));
    expect(all, exercise(run)).toHaveLength(2);
    for (const w of all) expect(w).toMatchObject({ inside: 0, busyReplicas: 3 });
    // Between the first wait's end and the second 429, every replica went back to the provider
    // (about 20 attempts each at this rate): none kept it closed to itself across the outage.
    const [first, second] = run.rows.filter((r) => r.hintMs !== null && r.hintMs > 0 && r.firstByteAt !== null);
    const replicaOf = new Map(run.outcomes.map((o) => [o.id, o.replica]));
    const back = run.rows.filter(
      (r) =>
        r.provider === 'openai' &&
        r.arrivalAt > first!.firstByteAt! + first!.hintMs! &&
        r.arrivalAt < second!.arrivalAt,
    );
    expect(new Set(back.map((r) => replicaOf.get(r.correlationId ?? '')))).toEqual(new Set([0, 1, 2]));
  });

  it('costs no client request when Redis restarts empty mid-wait, and keeps honouring that wait', async () => {
    const run = await runFleetScenario('04-redis-restarted-empty.yaml');
    expect(failed(judged(run)), explain(run)).toEqual([]);
    expect(run.outcomes.filter((o) => o.status !== 200)).toEqual([]);
    expect(run.fleet!.redisFaults[0]).toMatchObject({ id: 'redis-wiped', mode: 'restart', ended: expect.any(Number) });
    const all = waits(run, graceOf(run));
    expect(all).toHaveLength(2);
    for (const w of all) expect(w).toMatchObject({ inside: 0, busyReplicas: 3 });
  });
});

// These two run at once: their verdicts hang on seconds of early attempts, not on timing.
describe('the same fleet scenarios with each replica keeping its state in memory', () => {
  it.concurrent.each(['01-429-burst-one-replica.yaml', '02-window-end-under-load.yaml'])(
    'fails retry-after or single-probe on %s: the other replicas walk into the wait',
    async (file) => {
      const run = await runFleetScenario(file, 'memory');
      expect(run.fleet?.store).toBe('memory');
      // Failing at the widened grace, whatever the run judged (on a starved machine its own
      // allowance may call them inconclusive): these attempts are not news arriving late.
      const checks = rechecked(run);
      expect([verdictOf(checks, 'retry-after'), verdictOf(checks, 'single-probe')], digest(checks)).toContain('fail');
      expect(waits(run, graceOf(run)).some((w) => w.inside > 0)).toBe(true);
      const retryAfter = run.checks.find((c) => c.id === 'retry-after')!;
      expect(retryAfter.evidence[0]?.detail).toMatch(/; sent by replica \d, the wait was announced to replica \d(;|$)/);
    },
  );
});

it('drives a closed loop at a fleet: one client pool per replica, every request unique', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'throttlelab-closed-fleet-'));
  const file = join(dir, 'closed.yaml');
  await writeFile(
    file,
    `version: 1
name: fleet-closed-loop
seed: 9
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-closed }], latency: { completionTokens: 4 } }
router: { kind: reference, replicas: 2, store: memory, spread: skewed, skew: 0.75 }
load: { mode: closed, connections: 4, duration: 2s, requests: { models: [openai/gpt-4o-mini] } }
`,
  );
  try {
    const run = await runFleetScenario(file);
    expect(failed(judged(run)), explain(run)).toEqual([]);
    expect(new Set(run.outcomes.map((o) => o.id)).size).toBe(run.outcomes.length);
    // Each replica got its own pool (3 connections and 1: spread.test.ts checks the split). How
    // many requests each pool completes depends on each process's share of a busy machine's CPU,
    // so the counts are not compared.
    const [first, second] = run.fleet!.requests!;
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(0);
    // Each replica's processes are sampled apart (a request's lateness is excused only by its own
    // replica's wait for a CPU); the fleet's figure takes the busiest thread of all of them in each
    // interval, so it is never below any one replica's.
    const rq = run.routerRunQueue;
    if (schedstatUnavailable() === undefined) {
      expect(rq && 'replicas' in rq ? rq.replicas?.length : undefined, JSON.stringify(rq)).toBe(2);
      if (!rq || !('replicas' in rq) || !rq.replicas) return;
      for (const replica of rq.replicas) {
        expect(replica.processes).toBeGreaterThanOrEqual(1);
        expect(replica.samples).toBeGreaterThan(2);
        expect(replica.totalMs).toBeLessThanOrEqual(rq.totalMs + 0.1);
      }
      expect(rq.processes).toBeGreaterThanOrEqual(Math.max(...rq.replicas.map((x) => x.processes)));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
