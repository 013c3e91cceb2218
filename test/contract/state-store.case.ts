import { afterEach, expect, it } from 'vitest';
import { CLOSED, recordFailure, type CircuitState } from '../../router/core/circuit.js';
import type { FleetFacts, FleetLink } from '../../router/core/fleet.js';
import type { StateStore } from '../../router/core/state-store.js';
import { eventually } from '../helpers/eventually.js';
import { o, open as openUntil } from '../helpers/fake-circuit-redis.js';

/** Replicas of one fleet for the contract: for the memory store, one process (one store) seen n times. */
export interface StoreFleet {
  replicas(n: number): Promise<StateStore[]>;
  /** Whether the replicas are separate stores that share through a backend (facts travel between them). */
  shared: boolean;
  close(): Promise<void>;
}

const rng = { next: () => 0 };
const lease = (id: string, now: number) => (s: CircuitState) =>
  s.state === 'open' && now >= s.until
    ? ({ state: 'half-open', leaseUntil: now + 1000, reason: s.reason, opens: s.opens, lease: id } as const)
    : undefined;

/** A FleetLink that records what it is asked for and what it hears. */
function recordingLink(facts: Partial<FleetFacts> = {}): FleetLink & { heard: Array<[string, FleetFacts]> } {
  let sent = false;
  const heard: Array<[string, FleetFacts]> = [];
  return {
    heard,
    collect: () => {
      if (sent) return { limits: [], budget: [], usage: [] };
      sent = true;
      return { limits: [], budget: [], usage: [], ...facts };
    },
    apply: (from, f) => void heard.push([from, f]),
    expire: () => {},
  };
}

/** The behaviour every StateStore must have; each implementation runs it. */
export function runStateStoreContract(make: () => StoreFleet): void {
  let fleet: StoreFleet | undefined;
  const replicas = async (n: number) => (fleet ??= make()).replicas(n);
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
  });

  it('starts empty', async () => {
    const [s] = await replicas(1);
    expect(s!.get('limit:p/k/m')).toBeUndefined();
    expect([...s!.entries()]).toEqual([]);
  });

  it('applies a change at once on the replica that made it', async () => {
    const [s] = await replicas(1);
    s!.update('limit:p/k/m', openUntil(5000));
    expect(s!.get('limit:p/k/m')).toMatchObject({ state: 'open', until: 5000 });
    expect([...s!.entries()]).toEqual([['limit:p/k/m', s!.get('limit:p/k/m')]]);
  });

  it('shows a circuit opened on one replica to every other', async () => {
    const [a, b, c] = await replicas(3);
    a!.update('limit:p/k/m', openUntil(5000));
    for (const r of [b!, c!]) await eventually(() => expect(r.get('limit:p/k/m')).toMatchObject({ until: 5000 }));
  });

  it('keeps the later window when two replicas open one circuit at once (windows only extend)', async () => {
    const [a, b] = await replicas(2);
    a!.update('limit:p/k/m', openUntil(9000));
    b!.update('limit:p/k/m', openUntil(5000));
    for (const r of [a!, b!]) await eventually(() => expect(r.get('limit:p/k/m')).toMatchObject({ until: 9000 }));
  });

  it('counts failures from every replica towards one threshold', async () => {
    const [a, b, c] = await replicas(3);
    const fail = (s: CircuitState) => recordFailure(s, 100, 'server error', o, rng);
    a!.update('provider:p', fail);
    b!.update('provider:p', fail);
    c!.update('provider:p', fail);
    for (const r of [a!, b!, c!])
      await eventually(() => expect(r.get('provider:p')).toMatchObject({ state: 'open', until: 1100 }));
  });

  it('grants a probe lease to exactly one of many contenders across the fleet', async () => {
    const fleetOf = await replicas(3);
    fleetOf[0]!.update('limit:p/k/m', openUntil(1000));
    for (const r of fleetOf) await eventually(() => expect(r.get('limit:p/k/m')).toMatchObject({ until: 1000 }));
    const answers = await Promise.all(
      fleetOf.flatMap((r, i) => [0, 1, 2].map((j) => r.lease('limit:p/k/m', lease(`r${i}#${j}`, 2000)))),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
    const winner = fleetOf[0]!.get('limit:p/k/m');
    for (const r of fleetOf)
      await eventually(() =>
        expect(r.get('limit:p/k/m')).toMatchObject({ state: 'half-open', lease: expect.any(String) }),
      );
    await eventually(() => expect(fleetOf[2]!.get('limit:p/k/m')).toEqual(fleetOf[0]!.get('limit:p/k/m')));
    expect(winner).toMatchObject({ state: 'half-open' });
  });

  it('refuses a lease the state does not allow', async () => {
    const [s] = await replicas(1);
    s!.update('limit:p/k/m', openUntil(5000));
    expect(await s!.lease('limit:p/k/m', lease('x', 1000))).toBe(false);
    expect(s!.get('limit:p/k/m')).toMatchObject({ state: 'open' });
  });

  it('lets the probe that won close the circuit for the whole fleet', async () => {
    const [a, b] = await replicas(2);
    a!.update('limit:p/k/m', openUntil(1000));
    await eventually(() => expect(b!.get('limit:p/k/m')).toMatchObject({ until: 1000 }));
    expect(await b!.lease('limit:p/k/m', lease('b#1', 2000))).toBe(true);
    b!.update('limit:p/k/m', (s) => (s.state === 'half-open' && s.lease === 'b#1' ? CLOSED : s));
    for (const r of [a!, b!]) await eventually(() => expect(r.get('limit:p/k/m')).toEqual(CLOSED));
  });

  it('reports its health', async () => {
    const [s] = await replicas(1);
    const h = s!.health();
    expect(h.kind).toMatch(/^(memory|redis)$/);
    expect(h).toMatchObject({ fallbacks: 0, rejoins: 0, errors: 0 });
  });

  it('carries a replica’s reports to the others (shared stores only)', async () => {
    const [a, b] = await replicas(2);
    const facts: Partial<FleetFacts> = {
      limits: [
        ['p/k/m', { refill: 'continuous', requests: { limit: 10, remaining: 0, resetAt: 9000, observedAt: 1 } }],
      ],
      held: [['p/k/m', 2, 300]],
      budget: [[0, 5, 1]],
    };
    const sender = recordingLink(facts);
    const receiver = recordingLink();
    a!.link(sender);
    b!.link(receiver);
    if (!fleet!.shared) return;
    await eventually(() => expect(receiver.heard).toHaveLength(1));
    expect(receiver.heard[0]![0]).toBe(a!.replica);
    expect(receiver.heard[0]![1]).toMatchObject(facts);
  });
}
