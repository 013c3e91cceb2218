/** Process exit codes of every throttlelab command. */
export const EXIT = {
  OK: 0,
  CHECK_FAILED: 1,
  BAD_INPUT: 2,
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

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
