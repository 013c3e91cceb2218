// Over 300 lines on purpose: one store's connection life (join, serve locally, rejoin), its
// batching and its health belong together; the circuit cache is in shared-circuits.ts.
import { createRequire } from 'node:module';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import type { CircuitState } from '../core/circuit.js';
import type { Clock } from '../core/clock.js';
import { type FleetFacts, type FleetLink } from '../core/fleet.js';
import type { StateStore, StoreHealth } from '../core/state-store.js';
import { CAS_SCRIPT, redactRedisUrl, redisKeys } from './redis-keys.js';
import { SharedCircuits } from './shared-circuits.js';

/** What happened to the link with the fleet, said once per change. */
/** Circuit news kept while (re)joining; a fleet changes far fewer circuits than this in a join's round trips. */
const EARLY_NEWS_MAX = 10_000;

export type StoreEvent =
  | { kind: 'joined'; url: string; prefix: string; pushed: number; rejoin: boolean }
  | { kind: 'left'; url: string; reason: string; atStart: boolean };

/** Options of `createRedisStore`. */
export interface RedisStoreOptions {
  url: string;
  keyPrefix: string;
  /** This replica's name in the fleet. */
  replica: string;
  clock: Clock;
  /** A command slower than this counts as Redis being out of reach. */
  timeoutMs: number;
  /** Capacity, in-flight and retry-budget news is published this often (one PUBLISH, when there is news). */
  flushMs: number;
  /**
   * How often a replica says it is alive (with its in-flight counts whole) and writes the latest
   * limits and its usage counts to Redis, where the fleet's totals live; default 1 s.
   */
  heartbeatMs?: number;
  onEvent?: (event: StoreEvent) => void;
}

/** A Redis store, and a way to wait until it has joined the fleet. */
export interface RedisStore extends StateStore {
  /**
   * Resolves true once state is shared; false if Redis cannot be reached at all (the first attempt
   * failed) or state is not shared within `timeoutMs`.
   */
  joined(timeoutMs: number): Promise<boolean>;
}

// ioredis loads only when a router shares its state (about 25 MiB of RSS a memory-store router
// never pays): required here, synchronously, on the first Redis store made.
let RedisCtor: typeof RedisClient | undefined;
const redisClass = (): typeof RedisClient =>
  (RedisCtor ??= (createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient }).Redis);

const DAY = 86_400_000;
const MGET_CHUNK = 500;

type Report = { r: string; l?: FleetFacts['limits']; h?: FleetFacts['held']; b?: FleetFacts['budget'] };

function reasonOf(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const message = (e.message ?? String(error)).split('\n')[0]!;
  return /timed out/i.test(message) ? 'a command timed out' : (e.code ?? message);
}

/**
 * A StateStore shared by a fleet through Redis. Reads never leave the process: circuits are
 * cached and kept current by the fleet's channel; circuit changes and probe leases are written at
 * once by compare-and-set in Lua. Capacity observations, in-flight counts and retry-budget counts
 * are published in one message every `flushMs` when there is news; the latest limits and the usage
 * counts are written to Redis with each heartbeat. When Redis is slow (a command takes longer than
 * `timeoutMs`), down, or comes back empty, the replica serves on its local state, says so once
 * through `onEvent` and in `health()`, and rejoins as soon as Redis answers again, writing back the
 * open windows only it knew of. Nothing queues while Redis is away: writes are not retried, news
 * waits in the books (bounded by the number of targets), commands fail at once.
 */
export function createRedisStore(o: RedisStoreOptions): RedisStore {
  const keys = redisKeys(o.keyPrefix);
  const shownUrl = redactRedisUrl(o.url);
  const heartbeatMs = o.heartbeatMs ?? 1000;
  const options: RedisOptions = {
    lazyConnect: false,
    enableOfflineQueue: false,
    commandTimeout: o.timeoutMs,
    connectTimeout: Math.max(o.timeoutMs, 1000),
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(100 * times, 1000),
    connectionName: `throttlelab:${o.replica}`,
  };
  const Redis = redisClass();
  const cmd = new Redis(o.url, { ...options, scripts: { tlCas: { lua: CAS_SCRIPT, numberOfKeys: 2 } } });
  // The subscriber may queue its SUBSCRIBE until connected; it sends nothing else.
  const sub = new Redis(o.url, { ...options, enableOfflineQueue: true, commandTimeout: undefined });
  const cas = (cmd as unknown as { tlCas(...args: Array<string | number>): Promise<[number, string]> }).tlCas.bind(cmd);

  let link: FleetLink | undefined;
  const listeners: Array<(scope: string) => void> = [];
  const peers = new Map<string, number>();
  const counts = { fallbacks: 0, rejoins: 0, errors: 0 };
  let shared = false;
  let everJoined = false;
  let announcedAtStart = false;
  let lastError: string | undefined;
  let joining = false;
  /** Circuit news heard while not joined, applied after the join's snapshot. */
  let early: Array<[string, string]> = [];
  let flushing = false;
  // What the next heartbeat writes to Redis: the latest limits per target, and usage counted since.
  const limitsToStore = new Map<string, FleetFacts['limits'][number][1]>();
  const usageToStore = new Map<string, Record<string, number>>();
  let closed = false;
  let joinWaiters: Array<(ok: boolean) => void> = [];

  const circuits = new SharedCircuits(
    {
      async cas(scope, expected, state, ttlMs) {
        const [ok, value] = await cas(
          keys.circuit(scope),
          keys.seq,
          expected,
          state,
          ttlMs,
          keys.channel,
          scope,
          7 * DAY,
        );
        return { ok: Number(ok) === 1, value: String(value ?? '') };
      },
    },
    () => o.clock.now(),
    (scope) => listeners.forEach((l) => l(scope)),
    (error) => fail(error),
    o.replica,
  );

  const emit = (e: StoreEvent) => {
    try {
      o.onEvent?.(e);
    } catch {
      // A logger that throws must not break the store.
    }
  };

  /** Redis is out of reach (or too slow): serve on local state. */
  function lose(reason: string): void {
    if (closed) return;
    early = [];
    lastError = reason;
    if (shared) {
      shared = false;
      counts.fallbacks++;
      circuits.leave();
      emit({ kind: 'left', url: shownUrl, reason, atStart: false });
    } else if (!everJoined && !announcedAtStart) {
      announcedAtStart = true;
      emit({ kind: 'left', url: shownUrl, reason, atStart: true });
      // Nobody waits for a join that just failed: the replica starts on local state now.
      for (const resolve of joinWaiters) resolve(false);
      joinWaiters = [];
    }
  }

  function fail(error: unknown): void {
    counts.errors++;
    lose(reasonOf(error));
  }

  async function readCircuits(): Promise<Map<string, string>> {
    const found = new Map<string, string>();
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
        if (typeof v === 'string') found.set(name.slice(keys.circuitPrefix.length), v);
      });
    }
    return found;
  }

  /** Joins (or rejoins) the fleet once both connections are up: reads its state, writes back ours. */
  async function tryJoin(): Promise<void> {
    if (closed || shared || joining || cmd.status !== 'ready' || sub.status !== 'ready') return;
    joining = true;
    try {
      await cmd.set(keys.replica(o.replica), '1', 'PX', heartbeatMs * 5);
      // Loaded now, the script's first use is one round trip, not a NOSCRIPT answer and a second.
      await cmd.script('LOAD', CAS_SCRIPT);
      const stored = await readCircuits();
      const limits = await cmd.hgetall(keys.limits);
      if (closed) return;
      const pushed = circuits.rejoin(stored);
      shared = true;
      for (const [scope, value] of early) circuits.onMessage(scope, value);
      early = [];
      const now = o.clock.now();
      const adopted: FleetFacts['limits'] = [];
      for (const [target, json] of Object.entries(limits)) {
        try {
          adopted.push([target, JSON.parse(json)]);
        } catch {
          // Not ours to read.
        }
      }
      if (adopted.length > 0) link?.apply('fleet', { limits: adopted, budget: [], usage: [] }, now);
      if (everJoined) counts.rejoins++;
      emit({ kind: 'joined', url: shownUrl, prefix: o.keyPrefix, pushed, rejoin: everJoined });
      everJoined = true;
      lastError = undefined;
      for (const resolve of joinWaiters) resolve(true);
      joinWaiters = [];
      void flush(true);
    } catch (error) {
      fail(error);
    } finally {
      joining = false;
    }
  }

  /**
   * Publishes this replica's news (limits, in-flight counts, budget counts) in one message; with
   * `store`, also writes the latest limits (for replicas that join later) and the usage counted
   * since the last write (the fleet's totals) to Redis. One round trip either way.
   */
  async function flush(full: boolean, store = full): Promise<void> {
    if (!shared || !link || flushing || closed) return;
    const facts = link.collect(full);
    for (const [target, limits] of facts.limits) limitsToStore.set(target, limits);
    for (const [target, counts] of facts.usage) {
      const sum = usageToStore.get(target) ?? {};
      for (const [field, n] of Object.entries(counts)) sum[field] = (sum[field] ?? 0) + n;
      usageToStore.set(target, sum);
    }
    const report: Report = { r: o.replica };
    if (facts.limits.length > 0) report.l = facts.limits;
    if (facts.held !== undefined) report.h = facts.held;
    if (facts.budget.length > 0) report.b = facts.budget;
    const news = report.l !== undefined || report.h !== undefined || report.b !== undefined;
    const writes = store && (limitsToStore.size > 0 || usageToStore.size > 0);
    if (!news && !writes) return;
    flushing = true;
    const p = cmd.pipeline();
    if (news) p.publish(keys.channel, JSON.stringify(report));
    if (writes) {
      if (limitsToStore.size > 0) {
        p.hset(keys.limits, Object.fromEntries([...limitsToStore].map(([t, l]) => [t, JSON.stringify(l)])));
        p.pexpire(keys.limits, DAY);
      }
      for (const [target, counters] of usageToStore) {
        const key = keys.usage(target);
        for (const [field, n] of Object.entries(counters)) p.hincrby(key, field, n);
        p.pexpire(key, 7 * DAY);
      }
      limitsToStore.clear();
      usageToStore.clear();
    }
    try {
      const results = (await p.exec()) ?? [];
      const failed = results.find(([e]) => e);
      if (failed) fail(failed[0]);
    } catch (error) {
      fail(error);
    } finally {
      flushing = false;
    }
  }

  async function heartbeat(): Promise<void> {
    if (closed) return;
    const now = o.clock.now();
    link?.expire(now - 3 * heartbeatMs);
    for (const [id, at] of peers) if (at < now - 3 * heartbeatMs) peers.delete(id);
    if (!shared) return tryJoin();
    try {
      const kept = await cmd.set(keys.replica(o.replica), '1', 'PX', heartbeatMs * 5, 'XX');
      if (kept === null && shared) {
        // Our presence is gone: Redis restarted empty or was flushed. Everything the fleet knew is
        // gone with it; rejoin and write back what this replica knows.
        lose('Redis lost its data (restarted empty or flushed)');
        return tryJoin();
      }
    } catch (error) {
      return fail(error);
    }
    return flush(true);
  }

  // This replica's own reports come back on the channel; they are skipped before parsing.
  const ownReport = `${JSON.stringify({ r: o.replica }).slice(0, -1)},`;

  function onMessage(_channel: string, message: string): void {
    if (message.startsWith(ownReport)) return;
    let m: { c?: unknown; v?: unknown } & Partial<Report>;
    try {
      m = JSON.parse(message);
    } catch {
      return;
    }
    if (typeof m.c === 'string' && typeof m.v === 'string') {
      if (shared) circuits.onMessage(m.c, m.v);
      // News heard before this replica has (re)joined may be newer than the snapshot it is about to
      // read (another replica writing back as it rejoins): kept, and applied after the snapshot.
      // Versions decide, so a stale one is ignored. Bounded: past it the snapshot must do.
      else if (early.length < EARLY_NEWS_MAX) early.push([m.c, m.v]);
      return;
    }
    if (typeof m.r !== 'string' || m.r === o.replica || !shared) return;
    const now = o.clock.now();
    peers.set(m.r, now);
    link?.apply(
      m.r,
      {
        limits: Array.isArray(m.l) ? m.l : [],
        held: Array.isArray(m.h) ? m.h : undefined,
        budget: Array.isArray(m.b) ? m.b : [],
        usage: [],
      },
      now,
    );
  }

  for (const conn of [cmd, sub]) {
    conn.on('ready', () => void tryJoin());
    conn.on('close', () => lose(lastError ?? 'connection closed'));
    // ioredis reports every failed reconnection; the log hears of the outage once, through lose().
    conn.on('error', (error: unknown) => {
      lastError = reasonOf(error);
    });
  }
  sub.on('message', onMessage);
  void sub.subscribe(keys.channel).catch((error: unknown) => fail(error));

  const flushTimer = setInterval(() => void flush(false), o.flushMs);
  const heartbeatTimer = setInterval(() => void heartbeat(), heartbeatMs);
  flushTimer.unref();
  heartbeatTimer.unref();

  return {
    replica: o.replica,
    get: (scope) => circuits.get(scope),
    entries: (): Iterable<[string, CircuitState]> => circuits.list(),
    update: (scope, f) => circuits.update(scope, f),
    lease: (scope, f) => circuits.lease(scope, f),
    onRemoteChange: (listener) => void listeners.push(listener),
    link: (l) => {
      link = l;
    },
    health: (): StoreHealth => ({
      kind: 'redis',
      shared,
      fallbacks: counts.fallbacks,
      rejoins: counts.rejoins,
      errors: counts.errors,
      pendingWrites: circuits.pendingWrites(),
      peers: peers.size,
      ...(shared ? {} : { lastError: lastError ?? 'not connected yet' }),
    }),
    joined(timeoutMs) {
      if (shared) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          joinWaiters = joinWaiters.filter((w) => w !== done);
          resolve(false);
        }, timeoutMs);
        const done = (ok: boolean) => {
          clearTimeout(timer);
          resolve(ok);
        };
        joinWaiters.push(done);
      });
    },
    async close() {
      if (closed) return;
      await flush(true).catch(() => {});
      closed = true;
      clearInterval(flushTimer);
      clearInterval(heartbeatTimer);
      for (const resolve of joinWaiters) resolve(false);
      joinWaiters = [];
      if (cmd.status === 'ready') await cmd.del(keys.replica(o.replica)).catch(() => {});
      await Promise.all(
        [cmd, sub].map((c) =>
          c.status === 'ready'
            ? c.quit().then(
                () => {},
                () => c.disconnect(),
              )
            : Promise.resolve(c.disconnect()),
        ),
      );
    },
  };
}
