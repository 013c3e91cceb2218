/** What a command may touch of the outside world; `bin/throttlelab.ts` builds the real one. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
  env: Readonly<Record<string, string | undefined>>;
  /** Aborts when the user asks the process to stop; its reason is the signal's name (`SIGINT`, `SIGTERM`). */
  stop: AbortSignal;
  /** A fresh random seed when none is given. */
  randomSeed(): number;
  /** Whether output goes to a terminal (progress redraws in place). */
  isTTY: boolean;
  /** Shows a transient status line (a terminal redraws it; elsewhere it is dropped). */
  status(line: string): void;
  /** `--quiet`: no progress and nothing else non-essential on stderr. */
  quiet?: boolean;
  /** A monotonic wall clock (ms) that drives progress lines; without one no progress is shown. */
  now?(): number;
  /** Registers synchronous cleanup for a quit at once (a second Ctrl-C): temporary files, say. */
  onQuit?(cleanup: () => void): void;
}
