import { describe, expect, it } from 'vitest';
import { CircuitBook } from './circuit-book.js';
import { CLOSED, type CircuitOptions, type CircuitState } from './circuit.js';
import type { StateStore } from './state-store.js';
import { createMemoryStore } from '../state/memory-store.js';

const options: CircuitOptions = {
  failureThreshold: 3,
  openMs: 1000,
  maxOpenMs: 60_000,
  maxBackoffMs: 8000,
  jitterRatio: 0,
  probeLeaseMs: 5000,
};
const rng = { next: () => 0 };

/** A store whose leases the "fleet" answers later, as a shared store's do; `answer` settles them. */
function slowLeaseStore(): StateStore & { answer(win: boolean): void } {
  const inner = createMemoryStore('r1');
  const waiting: Array<{
    scope: string;
    f: (s: CircuitState) => CircuitState | undefined;
    resolve(ok: boolean): void;
  }> = [];
  return {
    ...inner,
    lease: (scope, f) => new Promise((resolve) => waiting.push({ scope, f, resolve })),
    answer(win) {
      for (const w of waiting.splice(0)) {
        if (win) void inner.lease(w.scope, w.f);
        else
          inner.update(w.scope, (s) => ({ ...s, state: 'half-open', leaseUntil: 1e12, lease: 'r2#1' }) as CircuitState);
        w.resolve(win);
      }
    },
  };
}

describe('CircuitBook with a shared store', () => {
  it('fails the first request over while the fleet decides, then gives the won lease to the next', async () => {
    const store = slowLeaseStore();
    let changes = 0;
    const book = new CircuitBook(store, options, rng, () => changes++);
    book.open('s', 1000, 0, 'rate limited');
    expect(book.pass('s', 1000)).toBeUndefined();
    expect(book.isPassable('s', 1001)).toBe(false);
    expect(book.pass('s', 1001)).toBeUndefined();
    store.answer(true);
    await Promise.resolve();
    expect(book.isPassable('s', 1002)).toBe(true);
    expect(book.pass('s', 1002)).toEqual({ probe: true });
    expect(book.get('s')).toMatchObject({ state: 'half-open', leaseUntil: 6002, lease: 'r1#1' });
    expect(book.pass('s', 1003)).toBeUndefined();
    book.success('s', true);
    expect(book.get('s')).toEqual(CLOSED);
    expect(changes).toBeGreaterThanOrEqual(3);
  });

  it('lets no request of this replica probe when another replica won the lease', async () => {
    const store = slowLeaseStore();
    const book = new CircuitBook(store, options, rng);
    book.open('s', 1000, 0, 'rate limited');
    expect(book.pass('s', 1000)).toBeUndefined();
    store.answer(false);
    await Promise.resolve();
    expect(book.isPassable('s', 1001)).toBe(false);
    expect(book.pass('s', 1001)).toBeUndefined();
  });

  it('does not let a probe close a circuit whose lease another replica holds now', () => {
    const store = createMemoryStore('r1');
    const book = new CircuitBook(store, options, rng);
    book.open('s', 1000, 0, 'rate limited');
    expect(book.pass('s', 1000)).toEqual({ probe: true });
    // This replica's lease lapsed (it stalled) and replica r2 took the circuit's next one.
    store.update('s', (s) => (s.state === 'half-open' ? { ...s, leaseUntil: 20_000, lease: 'r2#1' } : s));
    book.success('s', true);
    expect(book.get('s')).toMatchObject({ state: 'half-open', lease: 'r2#1' });
    book.release('s', 7000);
    expect(book.get('s')).toMatchObject({ state: 'half-open', lease: 'r2#1' });
  });
});
