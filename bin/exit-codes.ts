/** Process exit codes of every throttlelab command. */
export const EXIT = {
  OK: 0,
  CHECK_FAILED: 1,
  BAD_INPUT: 2,
  /** Nothing failed, but the run could not decide (a fault that matched nothing, a harness too loaded to judge timing, a margin too thin). */
  INCONCLUSIVE: 3,
  INTERNAL: 70,
  /** Stopped by SIGINT (Ctrl-C) before the run was complete: 128 + 2, as shells report it. */
  INTERRUPTED: 130,
  /** Stopped by SIGTERM before the run was complete: 128 + 15. */
  TERMINATED: 143,
} as const;

/** The exit code of a run the user stopped: 130 for SIGINT, 143 for SIGTERM. */
export function interruptedCode(stop: AbortSignal): ExitCode {
  return stop.reason === 'SIGTERM' ? EXIT.TERMINATED : EXIT.INTERRUPTED;
}

/**
 * The exit code of finished runs' verdicts: 1 if any failed, else 3 if any was inconclusive (or,
 * re-rendered from a saved report, interrupted: never a pass), else 0.
 */
export function verdictCode(verdicts: ReadonlyArray<'pass' | 'fail' | 'inconclusive' | 'interrupted'>): ExitCode {
  if (verdicts.includes('fail')) return EXIT.CHECK_FAILED;
  if (verdicts.some((v) => v !== 'pass')) return EXIT.INCONCLUSIVE;
  return EXIT.OK;
}

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
