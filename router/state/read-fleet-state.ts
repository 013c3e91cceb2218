import type { Redis as RedisClient } from 'ioredis';
import type { Clock } from '../core/clock.js';
import type { FleetFacts } from '../core/fleet.js';
import { boundLimits, type FleetBounds } from './fleet-bounds.js';
import type { redisKeys } from './redis-keys.js';

const MGET_CHUNK = 500;

/** What a replica reads from Redis as it (re)joins: every circuit the fleet stored, and the latest limits. */
export interface FleetState {
  /** By scope: `<seq>|<state JSON>`. */
  circuits: Map<string, string>;
  /** Each within bounds (fleet-bounds.ts). */
  limits: FleetFacts['limits'];
  /** Stored limits that were not valid, dropped. */
  rejected: number;
}

/** Reads the fleet's state: SCAN for the circuits' names, MGET in chunks, then the limits hash. */
export async function readFleetState(
  cmd: RedisClient,
  keys: ReturnType<typeof redisKeys>,
  bounds: FleetBounds,
  clock: Pick<Clock, 'now'>,
): Promise<FleetState> {
  const circuits = new Map<string, string>();
  let cursor = '0';
  const names: string[] = [];
  do {
    const [next, batch] = await cmd.scan(cursor, 'MATCH', keys.circuitPattern, 'COUNT', 1000);
    cursor = next;
    names.push(...batch);
  } while (cursor !== '0');
  for (let i = 0; i < names.length; i += MGET_CHUNK) {
    const chunk = names.slice(i, i + MGET_CHUNK);
    const values = await cmd.mget(...chunk);
    chunk.forEach((name, j) => {
      const v = values[j];
      if (typeof v === 'string') circuits.set(name.slice(keys.circuitPrefix.length), v);
    });
  }
  const stored = await cmd.hgetall(keys.limits);
  const limits: FleetFacts['limits'] = [];
  let rejected = 0;
  const now = clock.now();
  for (const [target, json] of Object.entries(stored)) {
    let bounded: ReturnType<typeof boundLimits>;
    try {
      bounded = boundLimits(JSON.parse(json), now, bounds);
    } catch {
      bounded = undefined;
    }
    if (bounded && target.length <= 512) limits.push([target, bounded]);
    else rejected++;
  }
  return { circuits, limits, rejected };
}
