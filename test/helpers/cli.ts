import { runCli } from '../../bin/cli.js';
import type { Io } from '../../bin/io.js';

/** An Io that records what a command prints, split into lines. */
export function captureIo(over: Partial<Io> = {}): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (l) => lines.push(...l.split('\n')),
    err: (l) => errors.push(...l.split('\n')),
    env: {},
    stop: new AbortController().signal,
    randomSeed: () => 7,
    isTTY: false,
    status: () => {},
    ...over,
  };
}

/** Runs the command line in process: its exit code and what it printed. */
export async function cli(args: string[], over: Partial<Io> = {}) {
  const io = captureIo(over);
  const code = await runCli(args, io);
  return { code, out: io.lines, err: io.errors };
}
