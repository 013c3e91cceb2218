import type { ChainableCommander } from 'ioredis';
import type { FleetFacts } from '../core/fleet.js';
import type { redisKeys } from './redis-keys.js';

const DAY = 86_400_000;

/**
 * What the next heartbeat writes to Redis, where the fleet's totals live: the latest limits per
 * target (for replicas that join later), and the usage counted since the last write.
 */
export class FleetWrites {
  private readonly limits = new Map<string, FleetFacts['limits'][number][1]>();
  private readonly usage = new Map<string, Record<string, number>>();

  /** Keeps a report's limits (the latest per target) and adds its usage to the counts. */
  add(facts: FleetFacts): void {
    for (const [target, limits] of facts.limits) this.limits.set(target, limits);
    for (const [target, counts] of facts.usage) {
      const sum = this.usage.get(target) ?? {};
      for (const [field, n] of Object.entries(counts)) sum[field] = (sum[field] ?? 0) + n;
      this.usage.set(target, sum);
    }
  }

  get pending(): boolean {
    return this.limits.size > 0 || this.usage.size > 0;
  }

  /** Queues the writes on `p` and forgets them: a write that fails is not retried. */
  writeTo(p: ChainableCommander, keys: ReturnType<typeof redisKeys>): void {
    if (this.limits.size > 0) {
      p.hset(keys.limits, Object.fromEntries([...this.limits].map(([t, l]) => [t, JSON.stringify(l)])));
      p.pexpire(keys.limits, DAY);
    }
    for (const [target, counters] of this.usage) {
      const key = keys.usage(target);
      for (const [field, n] of Object.entries(counters)) p.hincrby(key, field, n);
      p.pexpire(key, 7 * DAY);
    }
    this.limits.clear();
    this.usage.clear();
  }
}
