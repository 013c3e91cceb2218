import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSchedTreeReader, schedstatUnavailable } from './read-sched-tree.js';
import { recordRunQueueDelay } from './record-run-queue-delay.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface FakeProcess {
  pid: number;
  ppid: number;
  exe: string;
  /** tid → wait ns */
  threads: Record<number, number>;
  children?: number[];
  /** Field 22 of its stat: when it started, in clock ticks since boot. */
  startTime?: number;
}

/** A made-up /proc holding `processes`; `withChildren: false` is a kernel without the children files. */
function fakeProc(processes: FakeProcess[], withChildren = true): string {
  const root = mkdtempSync(join(tmpdir(), 'fake-proc-'));
  dirs.push(root);
  mkdirSync(join(root, 'self'));
  writeFileSync(join(root, 'self', 'schedstat'), '1 2 3\n');
  for (const p of processes) addProcess(root, p, withChildren);
  return root;
}

/** Puts `p` in the fake /proc at `root`, replacing a process of the same pid. */
function addProcess(root: string, p: FakeProcess, withChildren = true): void {
  const dir = join(root, String(p.pid));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  symlinkSync(p.exe, join(dir, 'exe'));
  writeFileSync(
    join(dir, 'stat'),
    `${p.pid} (a (b) c) S ${p.ppid} ${p.pid} ${p.pid} 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 ${p.startTime ?? 1000} 0\n`,
  );
  for (const [tid, waitNs] of Object.entries(p.threads)) {
    const task = join(dir, 'task', tid);
    mkdirSync(task, { recursive: true });
    writeFileSync(join(task, 'schedstat'), `999 ${waitNs} 7\n`);
    if (withChildren)
      writeFileSync(
        join(task, 'children'),
        Number(tid) === p.pid ? (p.children ?? []).map((c) => `${c} `).join('') : '',
      );
  }
}

const tree: FakeProcess[] = [
  { pid: 100, ppid: 1, exe: '/usr/bin/dash', threads: { 100: 5 }, children: [101] },
  { pid: 101, ppid: 100, exe: '/usr/local/bin/node', threads: { 101: 4000, 102: 60 } },
  { pid: 200, ppid: 1, exe: '/usr/bin/python3', threads: { 200: 1 } },
];

describe('createSchedTreeReader', () => {
  it("reads every thread's run-queue wait in the roots' trees, knowing Node processes by their executable", () => {
    const read = createSchedTreeReader(fakeProc(tree));
    expect(read([100])).toEqual([
      { pid: 100, node: false, exe: 'dash', threads: [{ tid: 100, waitNs: 5 }] },
      {
        pid: 101,
        node: true,
        exe: 'node',
        threads: [
          { tid: 101, waitNs: 4000 },
          { tid: 102, waitNs: 60 },
        ],
      },
    ]);
  });

  it('finds the children from the parent pids where the kernel has no children files', () => {
    const read = createSchedTreeReader(fakeProc(tree, false));
    expect(read([100]).map((p) => p.pid)).toEqual([100, 101]);
  });

  it('counts Bun and Deno as Node: runtimes whose main thread alone serves requests', () => {
    const read = createSchedTreeReader(
      fakeProc([
        { pid: 300, ppid: 1, exe: '/home/u/.bun/bin/bun', threads: { 300: 1, 301: 2 } },
        { pid: 400, ppid: 1, exe: '/usr/local/bin/deno', threads: { 400: 1 } },
      ]),
    );
    expect(read([300, 400]).map((p) => [p.exe, p.node])).toEqual([
      ['bun', true],
      ['deno', true],
    ]);
  });

  it('looks afresh at a pid reused by a process that started later', () => {
    const proc = fakeProc(tree);
    const read = createSchedTreeReader(proc);
    expect(read([101])).toMatchObject([{ pid: 101, node: true, exe: 'node' }]);
    addProcess(proc, { pid: 101, ppid: 1, exe: '/usr/bin/python3', threads: { 101: 7 }, startTime: 5000 });
    expect(read([101])).toMatchObject([{ pid: 101, node: false, exe: 'python3' }]);
  });

  it('scans /proc for parent pids at most once a second, reusing the last tree in between', () => {
    let now = 0;
    const proc = fakeProc(tree, false);
    const read = createSchedTreeReader(proc, { now: () => now });
    expect(read([100]).map((p) => p.pid)).toEqual([100, 101]);
    addProcess(proc, { pid: 103, ppid: 101, exe: '/usr/bin/sleep', threads: { 103: 1 } }, false);
    now = 999;
    expect(read([100]).map((p) => p.pid)).toEqual([100, 101]);
    now = 1000;
    expect(read([100]).map((p) => p.pid)).toEqual([100, 101, 103]);
  });

  it('leaves out a process that is gone, and reads nothing for no roots', () => {
    const read = createSchedTreeReader(fakeProc(tree));
    expect(read([4242, 200]).map((p) => p.pid)).toEqual([200]);
    expect(read([])).toEqual([]);
  });
});

describe('schedstatUnavailable', () => {
  it('says why where the system has no schedstat files, and nothing where it has', () => {
    expect(schedstatUnavailable(fakeProc(tree))).toBeUndefined();
    const bare = mkdtempSync(join(tmpdir(), 'no-proc-'));
    dirs.push(bare);
    expect(schedstatUnavailable(bare)).toBe(`${bare}/<pid>/schedstat is not available on this system (Linux only)`);
  });
});

describe('recordRunQueueDelay', () => {
  it('falls back to no figure, saying why, without /proc or without a process of its own', () => {
    const bare = mkdtempSync(join(tmpdir(), 'no-proc-'));
    dirs.push(bare);
    expect(recordRunQueueDelay([[100]], { proc: bare }).stop()).toEqual({
      unavailable: `${bare}/<pid>/schedstat is not available on this system (Linux only)`,
    });
    expect(recordRunQueueDelay([]).stop()).toEqual({
      unavailable: 'the harness did not start the router, so it has no process to read',
    });
  });

  it('samples at its start and stop, on the clock it is given', () => {
    let now = 1000;
    let wait = 0;
    const recorder = recordRunQueueDelay([[1]], {
      proc: fakeProc([]),
      now: () => now,
      read: () => [{ pid: 1, node: true, threads: [{ tid: 1, waitNs: wait }] }],
    });
    now = 1500;
    wait = 120e6;
    const r = recorder.stop();
    expect('delay' in r && r.delay.delayMs(1000, 1500)).toBe(120);
    expect('delay' in r && r.delay.summary()).toMatchObject({ totalMs: 120, samples: 2, threads: 1 });
  });

  it("times each replica's tree apart, and the fleet as a whole, from one reading per sample", () => {
    let now = 1000;
    const waits = new Map([
      [1, 0],
      [2, 0],
    ]);
    const asked: number[][] = [];
    const recorder = recordRunQueueDelay([[1], [2]], {
      proc: fakeProc([]),
      now: () => now,
      read: (roots) => {
        asked.push([...roots]);
        return roots.map((pid) => ({ pid, node: true, threads: [{ tid: pid, waitNs: waits.get(pid)! }] }));
      },
    });
    now = 1500;
    waits.set(2, 300e6);
    const r = recorder.stop();
    expect(asked).toEqual([[1], [2], [1], [2]]);
    expect('delay' in r).toBe(true);
    if (!('delay' in r)) return;
    expect(r.replicas.map((d) => d.delayMs(1000, 1500))).toEqual([0, 300]);
    expect(r.delay.delayMs(1000, 1500)).toBe(300);
    expect(r.delay.summary()).toMatchObject({ processes: 2, threads: 2 });
  });
});
