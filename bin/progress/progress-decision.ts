/** When progress shows, in wall ms: nothing for a short run, a live line on a terminal, spaced lines in a log. */
export const PROGRESS_TIMING = {
  /** A run shorter than this shows no progress at all. */
  firstAfterMs: 3000,
  /** A terminal's live line is redrawn at most this often. */
  redrawMs: 250,
  /** A log gets a line at most this often… */
  lineMinMs: 5000,
  /** …then further apart as the run goes on (a fifth of the time so far), but at least this often. */
  lineMaxMs: 60_000,
} as const;

/** What to do with a progress update: nothing, redraw the live line (a terminal), or print a line (a log). */
export type ProgressAction = 'none' | 'redraw' | 'line';

/** When the progress started and when it last showed (wall ms; `undefined`: not yet). */
export interface ProgressState {
  startedAt: number;
  shownAt: number | undefined;
}

/**
 * Decides whether an update at `now` shows. On a terminal the live line is redrawn every
 * `redrawMs` once the run is past `firstAfterMs`; in a log a line is printed every 5 s at first,
 * then every fifth of the elapsed time up to a minute, so a day's run prints a few dozen lines, not
 * thousands. `quiet` shows nothing.
 */
export function decideProgress(
  state: ProgressState,
  now: number,
  out: { tty: boolean; quiet: boolean },
  timing: typeof PROGRESS_TIMING = PROGRESS_TIMING,
): ProgressAction {
  if (out.quiet) return 'none';
  const elapsed = now - state.startedAt;
  if (elapsed < timing.firstAfterMs) return 'none';
  if (out.tty) return state.shownAt === undefined || now - state.shownAt >= timing.redrawMs ? 'redraw' : 'none';
  const every = Math.min(timing.lineMaxMs, Math.max(timing.lineMinMs, elapsed / 5));
  const since = now - (state.shownAt ?? state.startedAt);
  return since >= every ? 'line' : 'none';
}
