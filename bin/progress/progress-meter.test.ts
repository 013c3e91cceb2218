import { describe, expect, it } from 'vitest';
import { formatDuration, formatEta } from './format-progress.js';
import { createProgressMeter, stepMeter } from './progress-meter.js';

/** A fake terminal or log and a fake wall clock the test moves. */
function fakeIo(over: { isTTY?: boolean; quiet?: boolean; clock?: boolean } = {}) {
  const shown: string[] = [];
  let t = 0;
  const io = {
    isTTY: over.isTTY ?? false,
    ...(over.quiet ? { quiet: true } : {}),
    ...(over.clock === false ? {} : { now: () => t }),
    err: (line: string) => shown.push(`err ${line}`),
    status: (line: string) => shown.push(`status ${line}`),
  };
  return { io, shown, at: (ms: number) => (t = ms) };
}

describe('formatDuration and formatEta', () => {
  it('writes seconds, minutes and hours, and extrapolates the time left', () => {
    expect([formatDuration(4_400), formatDuration(125_000), formatDuration(12_000_000)]).toEqual([
      '4 s',
      '2 m 05 s',
      '3 h 20 m',
    ]);
    expect(formatEta(0.25, 30_000)).toBe('eta 1 m 30 s');
    expect(formatEta(0.001, 30_000)).toBe('eta …');
    expect(formatEta(1, 30_000)).toBe('eta 0 s');
  });
});

describe('createProgressMeter', () => {
  it('prints spaced plain lines with the ETA in a log, nothing in the first seconds', () => {
    const { io, shown, at } = fakeIo();
    const meter = createProgressMeter(io);
    for (const ms of [1000, 4000, 5000, 7000, 10_000]) {
      at(ms);
      meter.update(ms / 20_000, `simulated ${ms / 1000} s`);
    }
    meter.clear();
    expect(shown).toEqual([
      'err   simulated 5 s (25 %), 5 s wall, eta 15 s',
      'err   simulated 10 s (50 %), 10 s wall, eta 10 s',
    ]);
  });

  it('redraws one live line on a terminal and clears it at the end', () => {
    const { io, shown, at } = fakeIo({ isTTY: true });
    const meter = createProgressMeter(io);
    at(3000);
    meter.update(0.5, 'half');
    at(3100);
    meter.update(0.6, 'too soon to redraw');
    meter.clear();
    expect(shown).toEqual(['status   half (50 %), 3 s wall, eta 3 s', 'status ']);
  });

  it('shows nothing with --quiet, or without a wall clock', () => {
    for (const over of [{ quiet: true }, { clock: false }]) {
      const { io, shown, at } = fakeIo({ isTTY: true, ...over });
      const meter = createProgressMeter(io);
      at(60_000);
      meter.update(0.5, 'half');
      meter.clear();
      expect(shown).toEqual([]);
    }
  });

  it("says which of conform's scenarios runs and the whole pack's ETA", () => {
    const { io, shown, at } = fakeIo();
    const meter = createProgressMeter(io);
    at(30_000);
    // 2 of 12 done and half of the third: 2.5/12 of the pack in 30 s.
    stepMeter(meter, 2, 12, '03-storm').update(0.5, 'simulated 10 s of 20 s');
    expect(shown).toEqual(['err   3/12 03-storm: simulated 10 s of 20 s (20 %), 30 s wall, eta 1 m 54 s']);
  });
});
