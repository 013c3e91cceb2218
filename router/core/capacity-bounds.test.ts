import { describe, expect, it } from 'vitest';
import { CapacityBook } from './capacity.js';

describe('CapacityBook bounds', () => {
  it('holds a reset 99,999,999 hours away to the longest honoured wait', () => {
    const book = new CapacityBook({ maxResetInMs: 3_600_000 });
    book.observe('t', { refill: 'window', requests: { limit: 10, remaining: 0, resetAt: 99_999_999 * 3_600_000 } }, 0);
    expect(book.availableAt('t', 0, 0)).toBe(3_600_000);
  });

  it('expects a continuous bucket to refill at the rate its last answer implied', () => {
    const book = new CapacityBook();
    // 0 of 60 left, full again in 60 s: one a second.
    book.observe('t', { refill: 'continuous', requests: { limit: 60, remaining: 0, resetAt: 60_000 } }, 0);
    expect(book.expectedRequests('t', 0, 0, 10_000)).toBeCloseTo(10);
    book.reserve('t', 0);
    expect(book.expectedRequests('t', 0, 0, 10_000)).toBeCloseTo(9);
  });

  it('expects nothing of a window before its reset, and knows nothing once it resets', () => {
    const book = new CapacityBook();
    book.observe('t', { refill: 'window', requests: { limit: 5, remaining: 0, resetAt: 30_000 } }, 0);
    expect(book.expectedRequests('t', 0, 0, 10_000)).toBe(0);
    expect(book.expectedRequests('t', 0, 0, 40_000)).toBe(Infinity);
    expect(book.expectedRequests('unknown', 0, 0, 10_000)).toBe(Infinity);
  });
});
