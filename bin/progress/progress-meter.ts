import type { Io } from '../io.js';
import { decideProgress, type ProgressState } from './progress-decision.js';
import { formatProgress } from './format-progress.js';

/** Shows how far a long piece of work is, with an ETA, on stderr (stdout stays the report). */
export interface ProgressMeter {
  /** `fraction` of the whole is done (0–1); `text` says what, e.g. `simulated 2 h 10 m of 24 h`. */
  update(fraction: number, text: string): void;
  /** Clears the live line, if any (before printing a result, and at the end). */
  clear(): void;
}

/** A meter that shows nothing: where no wall clock was given (tests) or the user said `--quiet`. */
export const silentMeter: ProgressMeter = { update: () => {}, clear: () => {} };

/**
 * A meter on `io`: a live line on a terminal, a plain line every few seconds elsewhere (see
 * `decideProgress`), none with `io.quiet` or without `io.now` (the wall clock it is driven by).
 */
export function createProgressMeter(io: Pick<Io, 'err' | 'status' | 'isTTY' | 'quiet' | 'now'>): ProgressMeter {
  const now = io.now;
  if (!now || io.quiet) return silentMeter;
  const state: ProgressState = { startedAt: now(), shownAt: undefined };
  let live = false;
  return {
    update(fraction, text) {
      const at = now();
      const action = decideProgress(state, at, { tty: io.isTTY, quiet: false });
      if (action === 'none') return;
      state.shownAt = at;
      const line = formatProgress({ text, fraction, elapsedMs: at - state.startedAt });
      if (action === 'redraw') {
        io.status(line);
        live = true;
      } else io.err(line);
    },
    clear() {
      if (live) io.status('');
      live = false;
    },
  };
}

/** The meter of one of `count` runs in a row (conform's scenarios): `3/12 name`, its share of the whole. */
export function stepMeter(meter: ProgressMeter, index: number, count: number, name: string): ProgressMeter {
  return {
    update: (fraction, text) =>
      meter.update((index + Math.min(1, Math.max(0, fraction))) / count, `${index + 1}/${count} ${name}: ${text}`),
    clear: () => meter.clear(),
  };
}

/**
 * Says on stderr that the load is over and judging begins (a stop from then on reports the checks
 * judged so far): none with `io.quiet` or without `io.now`, as for the meter.
 */
export function judgingLine(io: Pick<Io, 'err' | 'quiet' | 'now'>, meter: ProgressMeter): (checks: number) => void {
  return (checks) => {
    meter.clear();
    if (io.now && !io.quiet) io.err(`  judging ${checks} checks (a stop now reports those judged)`);
  };
}
