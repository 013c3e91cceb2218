import { describe, expect, it } from 'vitest';
import { fixedWindow } from './fixed-window.js';
import type { LimitSpec } from './meter.js';
import { createWindowStart } from './window-start.js';

const spec: LimitSpec = { metric: 'requests', limit: 3, windowMs: 60_000, algorithm: 'fixed-window' };

describe('fixedWindow', () => {
  it('forgets everything at the window boundary (second 00)', () => {
    const s = fixedWindow.create(spec, 59_000);
    fixedWindow.consume(s, spec, 3, 59_000);
    expect(fixedWindow.available(s, spec, 59_999)).toBe(0);
    expect(fixedWindow.waitMs(s, spec, 1, 59_500)).toBe(500);
    expect(fixedWindow.available(s, spec, 60_000)).toBe(3);
  });

  it('resets to full only once used', () => {
    const s = fixedWindow.create(spec, 10_000);
    expect(fixedWindow.resetInMs(s, spec, 10_000)).toBe(0);
    fixedWindow.consume(s, spec, 1, 10_000);
    expect(fixedWindow.resetInMs(s, spec, 10_000)).toBe(50_000);
  });
});

describe('createWindowStart', () => {
  it('starts day windows at midnight Pacific, across daylight saving', () => {
    const start = createWindowStart(86_400_000, 'America/Los_Angeles');
    // 2026-07-15T20:00Z is 13:00 PDT; the day began at 07:00Z.
    expect(new Date(start(Date.UTC(2026, 6, 15, 20))).toISOString()).toBe('2026-07-15T07:00:00.000Z');
    // 2026-01-15T05:00Z is 21:00 PST the day before; that day began at 08:00Z on the 14th.
    expect(new Date(start(Date.UTC(2026, 0, 15, 5))).toISOString()).toBe('2026-01-14T08:00:00.000Z');
  });

  it('aligns plain windows to the epoch', () => {
    expect(createWindowStart(60_000)(125_000)).toBe(120_000);
  });
});
