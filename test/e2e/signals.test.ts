import { execFileSync, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { cp, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { reportFiles, startCli, until, type Cli } from '../helpers/cli-process.js';
import { reportsOf } from '../../harness/report/write-report.js';

// Ctrl-C and SIGTERM in a terminal or CI, and SIGKILL from a CI timeout: each leaves no process
// behind, and either a whole report with an honest "interrupted" verdict (exit 130, or 143 for
// SIGTERM) or nothing at all. Runs the built CLI (npm test builds first).

const LONG = 'test/fixtures/signals/long-run.yaml';
const ROUTER = 'node --import tsx test/fixtures/routers/serve.ts naive';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'throttlelab-signals-'));
});

/** Ctrl-C in a terminal: SIGINT to every process of the foreground group. */
const ctrlC = (cli: Cli) => process.kill(-cli.child.pid!, 'SIGINT');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A router command that writes its pid to `file` and then becomes the router (exec keeps the pid). */
const pidRouter = (file: string, command = ROUTER) => `echo $$ > ${file}; exec ${command}`;
const pidIn = async (file: string) => Number((await readFile(file, 'utf8')).trim());

// Each test drives its own CLI, router and folder, and mostly waits (on a router starting, on
// seconds of load before the signal), so most run at once (it.concurrent). Starting several CLIs
// and tsx routers together is slow on a busy machine: a generous timeout.
describe('signals during throttlelab run', { timeout: 60_000 }, () => {
  it.concurrent(
    'judges what was answered on Ctrl-C, says INTERRUPTED, exits 130 and leaves no router behind',
    async () => {
      const out = join(dir, 'run-int');
      const pidFile = join(dir, 'run-int.pid');
      const cli = startCli(['run', LONG, '--router-cmd', pidRouter(pidFile), '--out', out]);
      await until(() => /\d+ s \/ 60 s/.test(cli.output()) || /in flight/.test(cli.output()), 30_000).catch(() => {});
      await until(async () => (await readFile(pidFile, 'utf8').catch(() => '')).length > 0);
      const routerPid = await pidIn(pidFile);
      // Let the load run with streams live, then stop it.
      await new Promise((r) => setTimeout(r, 3000));
      ctrlC(cli);
      expect(await cli.exited).toBe(130);
      expect(cli.output()).toMatch(/verdict: INTERRUPTED after [\d.]+ s, not a pass/);
      const { names, reports } = await reportFiles(out);
      // The report, and the evidence of what was judged before the stop (router log, ledger, client outcomes).
      expect(names).toEqual([
        'index.html',
        'junit.xml',
        'ledger.jsonl',
        'outcomes.jsonl',
        'report.json',
        'router.log',
        'summary.md',
      ]);
      expect(reports[0]!.verdict).toBe('interrupted');
      expect(reports[0]!.load.interrupted).toBe(true);
      // Streams the stop cut are not streams the router ended silently.
      expect(reports[0]!.checks.find((c) => c.id === 'stream-integrity')!.verdict).not.toBe('fail');
      expect(await readFile(join(out, 'junit.xml'), 'utf8')).toContain('<error message="interrupted by the user');
      await until(() => !alive(routerPid) && !groupAlive(cli.child.pid!), 10_000);
    },
  );

  it.concurrent('exits 143 on SIGTERM, its report whole', async () => {
    const out = join(dir, 'run-term');
    const cli = startCli(['run', LONG, '--out', out]);
    await until(() => cli.output().includes('throttlelab run: scenario'));
    await new Promise((r) => setTimeout(r, 2000));
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(143);
    expect((await reportFiles(out)).reports[0]!.verdict).toBe('interrupted');
  });

  it.concurrent('exits 143 on SIGTERM within seconds in simulated time, however big the run', async () => {
    // 50,000 requests a second for 48 h against a quota of one a millisecond: judging what was
    // answered once took minutes of synchronous replay, and every further signal waited on it.
    const out = join(dir, 'sim-term');
    const cli = startCli(['run', 'test/fixtures/signals/big-simulated.yaml', '--time', 'simulated', '--out', out]);
    await until(() => cli.output().includes('throttlelab run: scenario'));
    await new Promise((r) => setTimeout(r, 2000));
    const stoppedAt = Date.now();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(143);
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    expect(cli.output()).toMatch(/verdict: INTERRUPTED after [\d.]+ s, not a pass/);
    expect((await reportFiles(out)).reports[0]!.verdict).toBe('interrupted');
  });

  it.concurrent(
    'stops at once on Ctrl-C while a router command is still starting, leaving nothing running',
    async () => {
      const pidFile = join(dir, 'start.pid');
      const cli = startCli(['run', LONG, '--router-cmd', pidRouter(pidFile, 'sleep 120'), '--out', join(dir, 'start')]);
      await until(async () => (await readFile(pidFile, 'utf8').catch(() => '')).length > 0);
      const routerPid = await pidIn(pidFile);
      const stoppedAt = Date.now();
      ctrlC(cli);
      expect(await cli.exited).toBe(130);
      // The defect ignored it until the 30 s start timeout.
      expect(Date.now() - stoppedAt).toBeLessThan(15_000);
      expect(cli.output()).toContain(
        'throttlelab: interrupted: Interrupted while the router was starting; nothing was run.',
      );
      await until(() => !alive(routerPid) && !groupAlive(cli.child.pid!), 10_000);
    },
  );

  it.concurrent('leaves no router behind when a CI timeout SIGKILLs the harness', async () => {
    const pidFile = join(dir, 'kill.pid');
    const cli = startCli(['run', LONG, '--router-cmd', pidRouter(pidFile), '--out', join(dir, 'kill')]);
    await until(async () => (await readFile(pidFile, 'utf8').catch(() => '')).length > 0);
    const routerPid = await pidIn(pidFile);
    await until(() => cli.output().includes('throttlelab run: scenario'));
    await new Promise((r) => setTimeout(r, 2000));
    expect(alive(routerPid)).toBe(true);
    cli.child.kill('SIGKILL');
    await cli.exited;
    // Its watchdog saw the harness go and stopped the router's whole group (SIGTERM, then SIGKILL).
    await until(() => !alive(routerPid) && !groupAlive(cli.child.pid!), 15_000);
  });

  it.concurrent(
    'leaves no router behind when a CI timeout SIGKILLs the whole process group (timeout -s KILL)',
    async () => {
      const pidFile = join(dir, 'group-kill.pid');
      // Its output goes elsewhere: a router writing to the dead harness's pipe would die of EPIPE by itself.
      const quiet = pidRouter(pidFile, `${ROUTER} > /dev/null 2>&1`);
      const cli = startCli(['run', LONG, '--router-cmd', quiet, '--out', join(dir, 'group-kill')]);
      await until(async () => (await readFile(pidFile, 'utf8').catch(() => '')).length > 0);
      const routerPid = await pidIn(pidFile);
      await until(() => cli.output().includes('throttlelab run: scenario'));
      expect(alive(routerPid)).toBe(true);
      // GNU timeout kills the command's whole group: the harness and everything still in its group.
      process.kill(-cli.child.pid!, 'SIGKILL');
      await cli.exited;
      // The watchdog lives in a session of its own: it saw the harness go and stopped the router.
      await until(() => !alive(routerPid), 20_000);
    },
  );

  // Alone: when the second Ctrl-C lands matters here (mid-write or not), so no other run loads the machine.
  it('quits at once on a second Ctrl-C, leaving no file half-written', async () => {
    const out = join(dir, 'twice');
    const cli = startCli(['run', LONG, '--out', out]);
    await until(() => cli.output().includes('throttlelab run: scenario'));
    await new Promise((r) => setTimeout(r, 2000));
    ctrlC(cli);
    await until(() => cli.output().includes('stopping'));
    ctrlC(cli);
    expect(await cli.exited).toBe(130);
    expect(cli.output()).toContain('throttlelab: SIGINT again: quitting at once');
    const names = await readdir(out).catch(() => [] as string[]);
    expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
    if (names.includes('report.json')) reportsOf(JSON.parse(await readFile(join(out, 'report.json'), 'utf8')));
  });
});

describe.concurrent('signals during throttlelab conform', { timeout: 90_000 }, () => {
  it('reports the scenarios judged, the one stopped and those never run, and exits 130', async () => {
    const pack = join(dir, 'pack');
    for (const name of ['a', 'b', 'c']) await cp(LONG, join(pack, `${name}.yaml`));
    const quick = join(pack, 'a.yaml');
    await cp('test/fixtures/signals/short-run.yaml', quick);
    const out = join(dir, 'conform');
    const pidFile = join(dir, 'conform.pid');
    const cli = startCli(['conform', '--dir', pack, '--router-cmd', pidRouter(pidFile), '--out', out]);
    // Its load is under way once the second scenario prints a progress line (every 5 s of load):
    // a fixed sleep lost the race to a router slow to start on a busy machine.
    const secondLoading = () => / s \/ 60 s /.test(cli.output().split('→ ')[2] ?? '');
    await until(secondLoading, 60_000);
    const routerPid = await pidIn(pidFile);
    ctrlC(cli);
    expect(await cli.exited).toBe(130);
    expect(cli.output()).toMatch(
      /conformance: INTERRUPTED, not a pass: \d of 3 scenarios pass .*1 never ran \(signals-long-run\)/,
    );
    const { reports } = await reportFiles(out);
    expect(reports.map((r) => r.verdict)).toEqual([expect.stringMatching(/pass|fail|inconclusive/), 'interrupted']);
    await until(() => !alive(routerPid) && !groupAlive(cli.child.pid!), 10_000);
  });

  it('says so and writes nothing when stopped before any scenario was judged', async () => {
    const pidFile = join(dir, 'conform-start.pid');
    const out = join(dir, 'none');
    const cli = startCli([
      'conform',
      '--dir',
      'test/fixtures/signals',
      '--only',
      'long-run',
      '--router-cmd',
      pidRouter(pidFile, 'sleep 120'),
      '--out',
      out,
    ]);
    await until(async () => (await readFile(pidFile, 'utf8').catch(() => '')).length > 0);
    const routerPid = await pidIn(pidFile);
    ctrlC(cli);
    expect(await cli.exited).toBe(130);
    expect(cli.output()).toContain('conformance: interrupted before any scenario was judged; no report written.');
    expect(await readdir(out).catch(() => 'absent')).toBe('absent');
    await until(() => !alive(routerPid) && !groupAlive(cli.child.pid!), 30_000);
  });
});

const hasRedis = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

describe('SIGKILL of a harness that started a redis-server for a fleet', () => {
  it.skipIf(!hasRedis)('leaves no redis-server behind', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/signals/hold-redis.ts'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    await until(() => /^\d+\n/.test(out), 20_000);
    const port = Number(out.trim());
    expect(await answers(port)).toBe(true);
    child.kill('SIGKILL');
    // Its watchdog saw the harness go: SIGTERM, then SIGKILL after 500 ms.
    await until(async () => !(await answers(port)), 10_000);
  });
});
