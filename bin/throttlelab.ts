#!/usr/bin/env node
import { randomInt } from 'node:crypto';
import { runCli } from './cli.js';
import { EXIT } from './exit-codes.js';
import type { Io } from './io.js';
import { printable } from './printable.js';

function createIo(): Io {
  const controller = new AbortController();
  const cleanups: Array<() => void> = [];
  // The first Ctrl-C (or SIGTERM) stops the work and lets it finish honestly: a run is judged on
  // what was answered and says "interrupted". A second one quits at once; reports are written
  // through a rename, so each file is whole or absent, and a router command's watchdog stops it.
  const stop = (signal: 'SIGINT' | 'SIGTERM') => {
    if (!controller.signal.aborted) {
      controller.abort(signal);
      process.stderr.write(`\nthrottlelab: ${signal}: stopping (send it again to quit at once)\n`);
      return;
    }
    process.stderr.write(`throttlelab: ${signal} again: quitting at once\n`);
    for (const cleanup of cleanups) {
      try {
        cleanup();
      } catch {
        // quitting regardless
      }
    }
    process.exit(signal === 'SIGTERM' ? EXIT.TERMINATED : EXIT.INTERRUPTED);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return {
    out: (line) => process.stdout.write(`${printable(line)}\n`),
    err: (line) => process.stderr.write(`${printable(line)}\n`),
    env: process.env,
    stop: controller.signal,
    randomSeed: () => randomInt(0, 2 ** 32 - 1),
    isTTY: process.stderr.isTTY === true,
    now: () => performance.now(),
    onQuit: (cleanup) => cleanups.push(cleanup),
    status: (line) => {
      if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${printable(line)}`);
    },
  };
}

runCli(process.argv.slice(2), createIo()).then(
  (code) => process.exit(code),
  // runCli catches everything; this is the last resort for a failure of the boundary itself.
  (error) => {
    process.stderr.write(`throttlelab: internal error; this is a bug, please report it.\n${String(error)}\n`);
    process.exit(EXIT.INTERNAL);
  },
);
