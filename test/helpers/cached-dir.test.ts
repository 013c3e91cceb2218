import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedDir, COMPLETE_MARKER, type CacheClock } from './cached-dir.js';

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
});

async function newRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'throttlelab-cached-dir-'));
  roots.push(root);
  return root;
}

const NOW = Date.parse('2026-12-03T06:00:00Z');

/** A clock that never waits; `onSleep` plays what another run does meanwhile. */
function fakeClock(onSleep: () => Promise<void> = async () => {}): CacheClock & { sleeps: number } {
  const clock = {
    sleeps: 0,
    now: () => NOW,
    sleep: async () => {
      clock.sleeps++;
      if (clock.sleeps > 100) throw new Error('waited forever');
      await onSleep();
    },
  };
  return clock;
}

/** A fill that writes one file and counts its calls. */
function countingFill() {
  const fill = async (dir: string) => {
    fill.calls++;
    await writeFile(join(dir, 'payload'), `fill ${fill.calls}`);
  };
  fill.calls = 0;
  return fill;
}

async function writeLock(root: string, key: string, pid: number, ageMs: number): Promise<void> {
  const lock = join(root, `${key}.lock`);
  await writeFile(lock, JSON.stringify({ pid, at: NOW - ageMs, token: 'other' }));
  const at = new Date(NOW - ageMs);
  await utimes(lock, at, at);
}

describe('cachedDir', () => {
  it('fills an entry once and reuses it, leaving no lock or scratch directory behind', async () => {
    const root = await newRoot();
    const fill = countingFill();
    const first = await cachedDir({ root, key: 'k', fill, clock: fakeClock() });
    const second = await cachedDir({ root, key: 'k', fill, clock: fakeClock() });
    expect(second).toBe(first);
    expect(fill.calls).toBe(1);
    expect(await readFile(join(first, 'payload'), 'utf8')).toBe('fill 1');
    expect((await readdir(root)).sort()).toEqual(['k']);
  });

  it('takes over a lock older than the stale age, though its owner is alive', async () => {
    const root = await newRoot();
    await writeLock(root, 'k', process.pid, 11 * 60_000);
    const fill = countingFill();
    const clock = fakeClock();
    await cachedDir({ root, key: 'k', fill, clock, staleLockMs: 10 * 60_000, isAlive: () => true });
    expect(fill.calls).toBe(1);
    expect(clock.sleeps).toBe(0);
    expect(existsSync(join(root, 'k.lock'))).toBe(false);
  });

  it('takes over a fresh lock at once given its owner is dead', async () => {
    const root = await newRoot();
    await writeLock(root, 'k', 4242, 1_000);
    const fill = countingFill();
    const clock = fakeClock();
    await cachedDir({ root, key: 'k', fill, clock, isAlive: (pid) => pid !== 4242 });
    expect(fill.calls).toBe(1);
    expect(clock.sleeps).toBe(0);
  });

  it('waits on a live, fresh lock and reuses what its owner filled, never filling concurrently', async () => {
    const root = await newRoot();
    await writeLock(root, 'k', 4242, 1_000);
    const fill = countingFill();
    // The owner finishes while this run waits: its entry appears, then its lock goes.
    const clock = fakeClock(async () => {
      if (clock.sleeps < 3) return;
      await mkdir(join(root, 'k'), { recursive: true });
      await writeFile(join(root, 'k', 'payload'), 'the other run');
      await writeFile(join(root, 'k', COMPLETE_MARKER), '');
      await rm(join(root, 'k.lock'));
    });
    const dir = await cachedDir({ root, key: 'k', fill, clock, isAlive: () => true });
    expect(fill.calls).toBe(0);
    expect(clock.sleeps).toBe(3);
    expect(await readFile(join(dir, 'payload'), 'utf8')).toBe('the other run');
  });

  it('does not reuse an entry without the completion marker (a half-written cache)', async () => {
    const root = await newRoot();
    await mkdir(join(root, 'k'));
    await writeFile(join(root, 'k', 'payload'), 'half');
    await writeFile(join(root, 'k', 'leftover'), '');
    const fill = countingFill();
    const dir = await cachedDir({ root, key: 'k', fill, clock: fakeClock() });
    expect(fill.calls).toBe(1);
    expect((await readdir(dir)).sort()).toEqual([COMPLETE_MARKER, 'payload']);
    expect(await readFile(join(dir, 'payload'), 'utf8')).toBe('fill 1');
  });

  it('leaves nothing reusable given the fill fails midway, and fills afresh on the next call', async () => {
    const root = await newRoot();
    const failing = async (dir: string) => {
      await writeFile(join(dir, 'payload'), 'half');
      throw new Error('npm died');
    };
    await expect(cachedDir({ root, key: 'k', fill: failing, clock: fakeClock() })).rejects.toThrow('npm died');
    expect(await readdir(root)).toEqual([]);
    const fill = countingFill();
    const dir = await cachedDir({ root, key: 'k', fill, clock: fakeClock() });
    expect(fill.calls).toBe(1);
    expect(await readFile(join(dir, 'payload'), 'utf8')).toBe('fill 1');
  });

  it('fills a different key afresh beside the old one', async () => {
    const root = await newRoot();
    const fill = countingFill();
    const a = await cachedDir({ root, key: 'day1-aaa', fill, clock: fakeClock() });
    const b = await cachedDir({ root, key: 'day1-bbb', fill, clock: fakeClock() });
    expect(b).not.toBe(a);
    expect(fill.calls).toBe(2);
  });

  it('prunes entries and scratch folders unused for the prune age when it fills a new entry, keeping recent ones', async () => {
    const root = await newRoot();
    const HOUR = 3_600_000;
    const old = new Date(NOW - 3 * HOUR);
    const recent = new Date(NOW - HOUR);
    for (const [name, at] of [
      ['old-entry', old],
      ['recent-entry', recent],
    ] as const) {
      await mkdir(join(root, name));
      await writeFile(join(root, name, COMPLETE_MARKER), '');
      await utimes(join(root, name, COMPLETE_MARKER), at, at);
    }
    await mkdir(join(root, 'killed.partial-1-x'));
    await utimes(join(root, 'killed.partial-1-x'), old, old);
    await writeFile(join(root, 'killed.lock'), '{}');
    await utimes(join(root, 'killed.lock'), old, old);
    await cachedDir({ root, key: 'new', fill: countingFill(), clock: fakeClock(), pruneAfterMs: 2 * HOUR });
    expect((await readdir(root)).sort()).toEqual(['new', 'recent-entry']);
  });

  it('marks an entry used each time it is reused, so a run still using it never has it pruned', async () => {
    const root = await newRoot();
    const fill = countingFill();
    const clock = fakeClock();
    const dir = await cachedDir({ root, key: 'k', fill, clock });
    const long = new Date(NOW - 10 * 3_600_000);
    await utimes(join(dir, COMPLETE_MARKER), long, long);
    await cachedDir({ root, key: 'k', fill, clock });
    expect((await stat(join(dir, COMPLETE_MARKER))).mtimeMs).toBe(NOW);
    expect(fill.calls).toBe(1);
  });
});
