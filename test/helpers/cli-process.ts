import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reportsOf } from '../../harness/report/write-report.js';

/** The built CLI started by a signals test: its process, everything it printed, and how it ended. */
export interface Cli {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts the CLI in its own process group, as a terminal's foreground job is. */
export function startCli(args: string[]): Cli {
  const child = spawn(process.execPath, ['dist/bin/throttlelab.js', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return { child, output: () => out, exited };
}

/** Polls `check` every 50 ms until it holds; throws after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The files a run wrote to `out`, and its reports as report.json holds them. */
export async function reportFiles(out: string) {
  const names = (await readdir(out)).sort();
  const json = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
  return { names, reports: reportsOf(json, 'report.json') };
}
