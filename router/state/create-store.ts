import type { RouterConfig } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { RouterError } from '../core/errors.js';
import type { StateStore } from '../core/state-store.js';
import { createMemoryStore } from './memory-store.js';
import { createRedisStore, type StoreEvent } from './redis-store.js';

/** What building a store needs besides the config. */
export interface StoreDeps {
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** This replica's name in the fleet. */
  replica: string;
  onEvent?: (event: StoreEvent) => void;
}

/** The Redis URL a config names, inline or through an environment variable. */
export function redisUrlOf(
  store: Extract<RouterConfig['store'], { kind: 'redis' }>,
  env: StoreDeps['env'],
): string | undefined {
  return store.url ?? env[store.env ?? 'REDIS_URL'];
}

/** The store a config asks for: memory by default, Redis for a fleet. */
export function createStore(config: RouterConfig, deps: StoreDeps): StateStore {
  const store = config.store;
  if (store.kind === 'memory') return createMemoryStore(deps.replica);
  const url = redisUrlOf(store, deps.env);
  if (!url)
    throw new RouterError(
      'ROUTER_CONFIG_INVALID',
      `Failed to set up the shared state: no Redis URL (set ${store.env ?? 'REDIS_URL'} or store.url).`,
    );
  return createRedisStore({
    url,
    keyPrefix: store.keyPrefix,
    replica: deps.replica,
    clock: deps.clock,
    timeoutMs: store.timeout,
    flushMs: store.flushEvery,
    onEvent: deps.onEvent,
    // Whatever the fleet says is held to the bounds of this replica's own decisions.
    bounds: {
      maxOpenMs: config.breaker.maxOpenFor,
      jitterRatio: config.breaker.jitterRatio,
      probeLeaseMs: config.attempt.timeout,
    },
  });
}
