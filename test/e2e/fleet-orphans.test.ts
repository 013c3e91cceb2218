import { execFileSync, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

// A CI timeout (`timeout -s KILL`) kills the harness's whole process group. The replicas of a
// `conform --fleet` run each run under a watchdog in a session of its own, which sees the harness
// go and kills its replica. Here the replicas are idle, so none would die of writing to the dead
// harness's pipe: with the watchdogs in the harness's group they are left running (seen).

const DEADLINE_MS = 60_000;

// The processes (pid, command line) whose command line names the fleet's folder: watchdogs and replicas.
function processesOf(logDir: string): Array<{ pid: number; args: string }> {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && m[2]!.includes(`${logDir}/router.json`))
    .map((m) => ({ pid: Number(m[1]), args: m[2]! }));
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

describe('SIGKILL of the whole process group of a harness running a fleet', () => {
  it(
    'leaves no replica behind, idle replicas included',
    async () => {
      // A group of its own, as a CI job's: killing it is `timeout -s KILL`'s kill.
      const harness = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/signals/hold-fleet.ts'], {
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: true,
      });
      let out = '';
      harness.stdout.on('data', (d) => (out += d));
      const exited = new Promise<void>((resolve) => harness.once('exit', () => resolve()));
      let logDir = '';
      try {
        expect(await until(() => /\n/.test(out), DEADLINE_MS)).toBe(true);
        logDir = out.trim();
        // Two replicas (`sh -c` may exec node or wait for it); their watchdogs' command lines name the folder too.
        const replicas = processesOf(logDir).filter(
          (p) => p.args.includes(' router --config ') && !p.args.includes(' -e '),
        );
        expect(replicas.filter((p) => !p.args.startsWith('sh ')).length).toBe(2);
        process.kill(-harness.pid!, 'SIGKILL');
        await exited;
        // The watchdogs give the replicas 5 s to stop, then kill them.
        const gone = await until(() => processesOf(logDir).length === 0, DEADLINE_MS);
        expect(
          gone,
          processesOf(logDir)
            .map((p) => p.args.slice(0, 80))
            .join('\n'),
        ).toBe(true);
      } finally {
        try {
          process.kill(-harness.pid!, 'SIGKILL');
        } catch {
          // gone
        }
        if (logDir) {
          for (const p of processesOf(logDir)) {
            try {
              process.kill(p.pid, 'SIGKILL');
            } catch {
              // gone
            }
          }
          await rm(logDir, { recursive: true, force: true });
        }
      }
    },
    3 * DEADLINE_MS,
  );
});
