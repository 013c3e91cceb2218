import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../simulator/index.js';
import type { FleetContext, RouterLaunch } from '../launch/launcher.js';
import { REDIS_HOST_VAR, REDIS_PORT_VAR, REDIS_PREFIX_VAR, REDIS_URL_VAR } from '../launch/provider-env.js';
import type { LoadTarget } from '../load/open-loop.js';
import type { RunScenario } from '../scenario/schema.js';
import { dropRedisPrefix } from './drop-redis-prefix.js';
import { playRedisFaults, type RedisFaultRecord } from './redis-faults.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { replicaPicker, type Spread } from './spread.js';

/** What a fleet run was, for the report. */
export interface FleetSummary {
  replicas: number;
  store: 'memory' | 'redis';
  spread: 'round-robin' | 'skewed';
  skew?: number;
  /** Requests sent to each replica. */
  requests?: number[];
  redisFaults: RedisFaultRecord[];
}

/** A run's fleet: its Redis, where its load goes, its Redis faults. */
export interface FleetRun {
  /** Set when the router under test is a fleet (more than one replica, or state in Redis). */
  context?: FleetContext;
  /** Variables a router command gets besides the providers' (THROTTLELAB_REDIS_URL …). */
  env: Record<string, string>;
  spread: Spread;
  /** Where the load goes: every replica of the launched fleet, spread as the scenario says. */
  target(launch: RouterLaunch): LoadTarget;
  /**
   * Starts the `redis` faults' clock: `at` counts from `origin`, the same origin as the simulator's
   * faults (its start), so that both kinds line up in one scenario.
   */
  startFaults(origin: number): void;
  summary(requestsPerReplica?: number[]): FleetSummary | undefined;
  stop(): Promise<void>;
}

/** THROTTLELAB_REDIS_URL, _HOST and _PORT for a Redis URL (redis:// or rediss://; port 6379 unless given). */
function redisVars(url: string): Record<string, string> {
  const u = new URL(url);
  return {
    [REDIS_URL_VAR]: url,
    [REDIS_HOST_VAR]: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    [REDIS_PORT_VAR]: u.port || '6379',
  };
}

/** Whether a scenario's router is a fleet: more than one replica, or replicas sharing state through Redis. */
export function isFleet(router: RunScenario['router']): boolean {
  return 'replicas' in router && (router.replicas > 1 || router.store === 'redis');
}

/** A Redis the run shares state through but does not own (a CI service container): `--redis-url`. */
export interface ExternalRedis {
  url: string;
  /** Unique to this run (the caller draws it), so that parallel runs on one Redis never share keys. */
  tag: string;
}

/**
 * Prepares a run's fleet: for state in Redis, a redis-server of the run's own on a free port (so
 * that its faults can stop it and no run sees another's keys), or the `external` one under a key
 * prefix of the run's own (its faults cannot be played there: the caller drops them); a folder for
 * the replicas' logs.
 */
export async function prepareFleet(
  scenario: RunScenario,
  seed: number,
  runId: string,
  external?: ExternalRedis,
): Promise<FleetRun> {
  const r = scenario.router;
  const spread: Spread =
    'replicas' in r
      ? { replicas: r.replicas, spread: r.spread, skew: r.skew }
      : { replicas: 1, spread: 'round-robin', skew: 0.8 };
  if (!isFleet(r) || !('replicas' in r))
    return {
      env: {},
      spread,
      target: (launch) => ({ baseUrl: launch.baseUrl }),
      startFaults: () => {},
      summary: () => undefined,
      stop: async () => {},
    };
  const redis: RedisServer | undefined = r.store === 'redis' && !external ? await startRedisServer() : undefined;
  const redisUrl = r.store === 'redis' ? (external?.url ?? redis?.url) : undefined;
  const keyPrefix = external ? `throttlelab:${runId}:${external.tag}:` : `throttlelab:${runId}:`;
  const env: Record<string, string> = redisUrl ? { ...redisVars(redisUrl), [REDIS_PREFIX_VAR]: keyPrefix } : {};
  const logDir = await mkdtemp(join(tmpdir(), `throttlelab-fleet-${seed}-`));
  let faults: ReturnType<typeof playRedisFaults> | undefined;
  return {
    context: { replicas: r.replicas, store: r.store, redisUrl, keyPrefix, logDir },
    env,
    spread,
    target(launch) {
      const baseUrls = launch.replicas ?? [launch.baseUrl];
      return {
        baseUrl: launch.baseUrl,
        replicas: { baseUrls, pick: replicaPicker({ ...spread, replicas: baseUrls.length }, seed) },
      };
    },
    startFaults(origin) {
      if (redis) faults = playRedisFaults(redis, scenario.redisFaults, origin, () => systemClock.now());
    },
    summary: (requests) => ({
      replicas: r.replicas,
      store: r.store,
      spread: r.spread,
      ...(r.spread === 'skewed' ? { skew: r.skew } : {}),
      ...(requests ? { requests } : {}),
      redisFaults:
        faults?.records ?? scenario.redisFaults.map((f) => ({ id: f.id, mode: f.mode, at: f.at, error: 'not played' })),
    }),
    async stop() {
      await faults?.stop();
      await redis?.close();
      if (external && redisUrl) await dropRedisPrefix(redisUrl, keyPrefix);
    },
  };
}
