import { expect, it } from 'vitest';
import type { CircuitState } from '../../router/core/circuit.js';
import type { StateStore } from '../../router/core/state-store.js';

/** The behaviour every StateStore must have; each implementation runs it. */
export function runStateStoreContract(create: () => StateStore): void {
  const open: CircuitState = { state: 'open', until: 5000, reason: 'x', opens: 1 };

  it('starts empty', () => {
    expect(create().get('k')).toBeUndefined();
  });

  it('sets a state only when the expected one is current', () => {
    const s = create();
    expect(s.compareAndSet('k', undefined, open)).toBe(true);
    expect(s.compareAndSet('k', undefined, open)).toBe(false);
    const lease: CircuitState = { state: 'half-open', leaseUntil: 9000, reason: 'x', opens: 1 };
    expect(s.compareAndSet('k', open, lease)).toBe(true);
    expect(s.get('k')).toEqual(lease);
  });

  it('grants a probe lease to exactly one of many contenders', () => {
    const s = create();
    s.compareAndSet('k', undefined, open);
    const seen = s.get('k');
    const wins = Array.from({ length: 10 }, (_, i) =>
      s.compareAndSet('k', seen, { state: 'half-open', leaseUntil: 9000 + i, reason: 'x', opens: 1 }),
    ).filter(Boolean);
    expect(wins).toHaveLength(1);
  });

  it('lists its entries', () => {
    const s = create();
    s.compareAndSet('a', undefined, open);
    expect([...s.entries()]).toEqual([['a', open]]);
  });
}
