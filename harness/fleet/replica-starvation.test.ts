import { describe, expect, it } from 'vitest';
import { input, limited, outcome, row, stalls, T0 } from '../../test/helpers/evidence.js';
import { checkDeadline } from '../checks/deadline.js';
import { checkGoodput } from '../checks/goodput.js';
import { runChecks } from '../checks/run-checks.js';
import { recordRunQueueDelay } from '../launch/record-run-queue-delay.js';
import { replicaWait } from '../launch/replica-wait.js';

// A fleet's replicas are processes of their own: on a busy machine one may wait for a CPU while
// another runs. Each is sampled apart, and a request's lateness is explained only by the replica
// that served it. Here the recorder reads a fake pair of replicas (pids 1 and 2) at its start and
// stop, the second reading with `starved` having waited `waitMs` for a CPU over the span.
function fleetWait(starved: 0 | 1, spanMs: number, waitMs: number) {
  let now = T0;
  let waitNs = 0;
  const recorder = recordRunQueueDelay([[1], [2]], {
    now: () => now,
    read: ([pid]) => [{ pid: pid!, node: true, threads: [{ tid: pid!, waitNs: pid === starved + 1 ? waitNs : 0 }] }],
  });
  now = T0 + spanMs;
  waitNs = waitMs * 1e6;
  const recorded = recorder.stop();
  if (!('delay' in recorded)) throw new Error(recorded.unavailable);
  return replicaWait(recorded);
}

describe("deadline in a fleet, a replica's starvation", () => {
  // a and b: 2000 and 1800 ms past a 3000 ms deadline; 3000 ms of run-queue delay over the 6 s
  // covers 2500 and 2400 ms of their lives.
  const late = (replica: number) => [
    outcome({ id: 'a', at: 0, deadlineMs: 3000, endAt: T0 + 5000, replica }),
    outcome({ id: 'b', at: 500, deadlineMs: 3000, endAt: T0 + 5300, replica }),
    outcome({ id: 'c', at: 1000, deadlineMs: 3000, endAt: T0 + 1200, replica: 1 - replica }),
  ];

  it('makes the late requests it served INCONCLUSIVE, naming it', () => {
    const r = checkDeadline({ ...input({ outcomes: late(0) }), routerWaitMs: fleetWait(0, 6000, 3000) });
    expect(r.verdict, r.figure).toBe('inconclusive');
    expect(r.reason).toMatch(/the processes of the replica that served each of them waited up to 2500 ms for a CPU/);
    expect(r.evidence.map((e) => e.detail)).toEqual([
      'answered 2000 ms after its 3000 ms deadline; replica 0 waited 2500 ms for a CPU meanwhile',
      'answered 1800 ms after its 3000 ms deadline; replica 0 waited 2400 ms for a CPU meanwhile',
    ]);
  });

  it("does not excuse another replica's late requests: FAIL", () => {
    const r = checkDeadline({ ...input({ outcomes: late(1) }), routerWaitMs: fleetWait(0, 6000, 3000) });
    expect(r.verdict).toBe('fail');
    expect(r.evidence.map((e) => e.detail)).toEqual([
      'answered 2000 ms after its 3000 ms deadline',
      'answered 1800 ms after its 3000 ms deadline',
    ]);
  });
});

describe("goodput in a fleet, a replica's starvation", () => {
  // 100 of 1000 unserved (503 inside their 3 s deadline), all on `replica`; the others served by both.
  const outcomes = (replica: number) => [
    ...Array.from({ length: 900 }, (_, i) => outcome({ id: `r${i}`, at: i * 10, deadlineMs: 3000, replica: i % 2 })),
    ...Array.from({ length: 100 }, (_, i) =>
      outcome({ id: `x${i}`, at: i * 10, status: 503, deadlineMs: 3000, endAt: T0 + i * 10 + 2900, replica }),
    ),
  ];
  const judge = (served: number, starved: 0 | 1) => {
    const list = outcomes(served);
    const rows = list.map((o) => row({ at: o.sentAt - T0, correlationId: o.id, status: o.status === 200 ? 200 : 500 }));
    return checkGoodput({ ...input({ outcomes: list, rows }), routerWaitMs: fleetWait(starved, 4000, 3000) });
  };

  it('excuses the unserved requests it held: INCONCLUSIVE', () => {
    const r = judge(1, 1);
    expect(r.verdict, r.figure).toBe('inconclusive');
    expect(r.reason).toMatch(/the processes of the replica that held each of them waited for a CPU/);
    expect(r.details).toMatchObject({ unservedThroughStalls: 100 });
  });

  it('does not excuse the unserved requests of another replica: FAIL', () => {
    const r = judge(1, 0);
    expect(r.verdict).toBe('fail');
    expect(r.details).toMatchObject({ unservedThroughStalls: 0 });
  });
});

describe("retry-after in a fleet, a replica's starvation", () => {
  // A 20 s wait announced to replica 0's request a; b's attempt arrived 1.9 s into it, the loop
  // behind 0.8 s meanwhile and one replica's process waiting 1.1 s for a CPU.
  const rows = (id: string) => [limited(0, 20_000, { correlationId: 'a' }), row({ at: 1900, correlationId: id })];
  const outcomes = [
    outcome({ id: 'a', at: 0, endAt: T0 + 3000, replica: 0 }),
    outcome({ id: 'b', at: 0, endAt: T0 + 3000, replica: 1 }),
  ];
  const judge = (id: string, starved: 0 | 1) =>
    runChecks({
      ...input({ rows: rows(id), outcomes }),
      loopBehindMs: stalls([10, 810]),
      routerWaitMs: fleetWait(starved, 1900, 1100),
    }).find((c) => c.id === 'retry-after')!;

  it('counts an attempt the starved replica sent as an in-flight race, not a violation', () => {
    const r = judge('b', 1);
    expect(r.verdict, r.figure).toBe('pass');
    expect(r.details).toMatchObject({ races: 1 });
  });

  it('does not excuse an attempt another replica sent: FAIL', () => {
    const r = judge('b', 0);
    expect(r.verdict).toBe('fail');
    expect(r.evidence[0]!.detail).toContain('sent by replica 1, the wait was announced to replica 0');
  });

  it('counts the whole fleet for an attempt no client request accounts for (any replica may have sent it)', () => {
    expect(judge('z', 0).details).toMatchObject({ races: 1 });
    expect(judge('z', 1).details).toMatchObject({ races: 1 });
  });
});
