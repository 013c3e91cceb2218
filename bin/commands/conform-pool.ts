import type { ProgressMeter } from '../progress/progress-meter.js';

/**
 * Runs `count` jobs with at most `jobs` at once, in index order: job `i` starts when one before it
 * has ended, and none starts once `stopped()` says so. Resolves when every started job has ended,
 * with each job's result at its index (undefined for those never started).
 */
export async function runPool<T>(
  count: number,
  jobs: number,
  job: (index: number) => Promise<T>,
  stopped: () => boolean,
): Promise<Array<T | undefined>> {
  const results: Array<T | undefined> = new Array<T | undefined>(count).fill(undefined);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count && !stopped()) {
      const i = next++;
      results[i] = await job(i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, count)) }, lane));
  return results;
}

/**
 * One meter over scenarios that run side by side: each scenario's share counts towards the whole,
 * and the line says how many are done and which are running.
 */
export class PoolMeter {
  private readonly shares = new Map<number, { name: string; fraction: number }>();
  private done = 0;

  constructor(
    private readonly meter: ProgressMeter,
    private readonly count: number,
  ) {}

  /** The meter of scenario `index`, named `name`. */
  step(index: number, name: string): ProgressMeter & { end(): void } {
    this.shares.set(index, { name, fraction: 0 });
    return {
      update: (fraction) => {
        const share = this.shares.get(index);
        if (share) share.fraction = Math.min(1, Math.max(0, fraction));
        this.show();
      },
      clear: () => this.meter.clear(),
      end: () => {
        if (this.shares.delete(index)) this.done++;
        this.show();
      },
    };
  }

  private show(): void {
    let sum = this.done;
    const running: string[] = [];
    for (const { name, fraction } of this.shares.values()) {
      sum += fraction;
      running.push(name);
    }
    this.meter.update(sum / this.count, `${this.done}/${this.count} done; running ${running.join(', ') || 'none'}`);
  }
}
