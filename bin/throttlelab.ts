#!/usr/bin/env node
import { randomInt } from 'node:crypto';
import { runCli } from './cli.js';
import { EXIT } from './exit-codes.js';
import type { Io } from './io.js';
import { printable } from './printable.js';

function createIo(): Io {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    out: (line) => process.stdout.write(`${printable(line)}\n`),
    err: (line) => process.stderr.write(`${printable(line)}\n`),
    env: process.env,
    stop: controller.signal,
    randomSeed: () => randomInt(0, 2 ** 32 - 1),
    isTTY: process.stderr.isTTY === true,
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
