/** A wall or simulated duration for a progress line: `45 s`, `2 m 05 s`, `3 h 20 m`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} m`;
}

/**
 * The wall time left when `fraction` of the work took `elapsedMs`, in words; `eta …` while too
 * little is done (under 1 %) to extrapolate.
 */
export function formatEta(fraction: number, elapsedMs: number): string {
  if (!(fraction >= 0.01)) return 'eta …';
  if (fraction >= 1) return 'eta 0 s';
  return `eta ${formatDuration((elapsedMs * (1 - fraction)) / fraction)}`;
}

/** One progress line: what is done, its share, the wall time so far and the ETA. */
export function formatProgress(p: { text: string; fraction: number; elapsedMs: number }): string {
  const pct = Math.floor(Math.min(1, Math.max(0, p.fraction)) * 100);
  return `  ${p.text} (${pct} %), ${formatDuration(p.elapsedMs)} wall, ${formatEta(p.fraction, p.elapsedMs)}`;
}
