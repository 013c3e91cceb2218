import { describe, expect, it } from 'vitest';
import { PoolMeter, runPool } from './conform-pool.js';

/** A job that ends when the test says so, recording how many run at once. */
function gate() {
  const ends: Array<() => void> = [];
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const job = (i: number) =>
    new Promise<string>((resolve) => {
      started.push(i);
      running++;
      most = Math.max(most, running);
      ends[i] = () => {
        running--;
        resolve(`r${i}`);
      };
    });
  return { job, ends, started, most: () => most };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('runPool', () => {
  it('runs at most `jobs` at once, starts in index order, keeps results by index', async () => {
    const g = gate();
    const done = runPool(5, 2, g.job, () => false);
    await tick();
    expect(g.started).toEqual([0, 1]);
    g.ends[1]!();
    await tick();
    expect(g.started).toEqual([0, 1, 2]);
    g.ends[0]!();
    g.ends[2]!();
    await tick();
    g.ends[3]!();
    g.ends[4]!();
    expect(await done).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(g.most()).toBe(2);
  });

  it('starts nothing more once stopped, and waits for those running', async () => {
    const g = gate();
    let stop = false;
    const done = runPool(4, 2, g.job, () => stop);
    await tick();
    stop = true;
    g.ends[0]!();
    g.ends[1]!();
    expect(await done).toEqual(['r0', 'r1', undefined, undefined]);
    expect(g.started).toEqual([0, 1]);
  });

  it('with one job is one after another', async () => {
    const order: string[] = [];
    const out = await runPool(
      3,
      1,
      async (i) => {
        order.push(`start ${i}`);
        await tick();
        order.push(`end ${i}`);
        return i;
      },
      () => false,
    );
    expect(out).toEqual([0, 1, 2]);
    expect(order).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });
});

describe('PoolMeter', () => {
  it('counts each running share towards the whole and names what runs', () => {
    const seen: Array<[number, string]> = [];
    const pool = new PoolMeter({ update: (f, t) => seen.push([f, t]), clear: () => {} }, 4);
    const a = pool.step(0, 'a');
    const b = pool.step(1, 'b');
    a.update(0.5, 'half');
    expect(seen.at(-1)).toEqual([0.125, '0/4 done; running a, b']);
    a.end();
    b.update(0.5, 'half');
    expect(seen.at(-1)).toEqual([0.375, '1/4 done; running b']);
    b.end();
    expect(seen.at(-1)).toEqual([0.5, '2/4 done; running none']);
  });
});
