/** Process exit codes of every throttlelab command. */
export const EXIT = {
  OK: 0,
  CHECK_FAILED: 1,
  BAD_INPUT: 2,
  INTERNAL: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
