import { describe, expect, it } from 'vitest';
import { decideProgress } from './progress-decision.js';

const log = { tty: false, quiet: false };
const tty = { tty: true, quiet: false };

describe('decideProgress', () => {
  it.each([
    ['a short run on a terminal', { startedAt: 0, shownAt: undefined }, 2999, tty, 'none'],
    ['a run past 3 s on a terminal', { startedAt: 0, shownAt: undefined }, 3000, tty, 'redraw'],
    ['a terminal redrawn 100 ms ago', { startedAt: 0, shownAt: 9900 }, 10_000, tty, 'none'],
    ['a terminal redrawn 250 ms ago', { startedAt: 0, shownAt: 9750 }, 10_000, tty, 'redraw'],
    ['a log at 4 s', { startedAt: 0, shownAt: undefined }, 4000, log, 'none'],
    ['a log at 5 s', { startedAt: 0, shownAt: undefined }, 5000, log, 'line'],
    ['a log 4 s after its last line', { startedAt: 0, shownAt: 6000 }, 10_000, log, 'none'],
    ['a log 5 s after its last line, 10 s in', { startedAt: 0, shownAt: 5000 }, 10_000, log, 'line'],
    [
      'a log 10 s after its last line, 100 s in (a fifth: 20 s)',
      { startedAt: 0, shownAt: 90_000 },
      100_000,
      log,
      'none',
    ],
    ['a log 20 s after its last line, 100 s in', { startedAt: 0, shownAt: 80_000 }, 100_000, log, 'line'],
    ['a log 59 s after its last line, an hour in', { startedAt: 0, shownAt: 3_541_000 }, 3_600_000, log, 'none'],
    ['a log 60 s after its last line, an hour in', { startedAt: 0, shownAt: 3_540_000 }, 3_600_000, log, 'line'],
    ['--quiet on a terminal', { startedAt: 0, shownAt: undefined }, 60_000, { tty: true, quiet: true }, 'none'],
    ['--quiet in a log', { startedAt: 0, shownAt: undefined }, 60_000, { tty: false, quiet: true }, 'none'],
  ] as const)('%s: %s', (_, state, now, out, action) => {
    expect(decideProgress(state, now, out)).toBe(action);
  });

  it('prints a bounded number of lines in a log over a day, however often it is asked', () => {
    const state = { startedAt: 0, shownAt: undefined as number | undefined };
    let lines = 0;
    for (let now = 0; now <= 86_400_000; now += 100) {
      if (decideProgress(state, now, log) === 'line') {
        lines++;
        state.shownAt = now;
      }
    }
    // Every 5 s at first, a fifth of the elapsed time after 25 s, then once a minute: ~1 440 in a day.
    expect(lines).toBeGreaterThan(1400);
    expect(lines).toBeLessThan(1460);
  });
});
