import { describe, expect, it } from 'vitest';
import { replicaWait } from './replica-wait.js';
import type { RunQueueDelay } from './run-queue-delay.js';

/** A timeline that accrues `perMs` of delay per ms of span. */
const flat = (perMs: number): RunQueueDelay => ({
  delayMs: (from, to) => Math.max(0, to - from) * perMs,
  sampledAt: () => [],
  summary: () => ({ totalMs: 0, worstWindowMs: 0, windowMs: 1000, samples: 0, processes: 0, threads: 0 }),
});

describe('replicaWait', () => {
  it("gives a fleet's replica its own delay, and the whole fleet's to an attempt no replica accounts for", () => {
    const wait = replicaWait({ delay: flat(0.5), replicas: [flat(0), flat(0.5)] });
    expect(wait(0, 1000, 0)).toBe(0);
    expect(wait(0, 1000, 1)).toBe(500);
    expect(wait(0, 1000)).toBe(500);
  });

  it('gives a single router its own delay whatever replica is asked for', () => {
    const wait = replicaWait({ delay: flat(0.3), replicas: [flat(0.3)] });
    expect(wait(0, 1000)).toBe(300);
    expect(wait(0, 1000, 0)).toBe(300);
  });
});
