import type { CircuitState } from '../core/circuit.js';
import type { FleetLink } from '../core/fleet.js';
import type { CircuitUpdate, StoreHealth } from '../core/state-store.js';
import { DEFAULT_FLEET_BOUNDS, type FleetBounds } from './fleet-bounds.js';
import type { RedisStore, RedisStoreOptions, StoreEvent } from './redis-store-options.js';
import { encodeReport, fleetMessageDecoder } from './fleet-message.js';
import { FleetWrites } from './fleet-writes.js';
import { JoinWaiters } from './join-waiters.js';
import { readFleetState, type FleetState } from './read-fleet-state.js';
import { circuitBackend, closeWithin, connectRedis, type RedisConnections } from './redis-connections.js';
import { redisItems } from './redis-items.js';
import type { SharedItems } from '../core/shared-items.js';
import { CAS_SCRIPT, redactRedisUrl, redisKeys } from './redis-keys.js';
import { SharedCircuits } from './shared-circuits.js';

/** Circuit news kept while (re)joining; a fleet changes far fewer circuits than this in a join's round trips. */
const EARLY_NEWS_MAX = 10_000;
/** Reports from more replicas than this at once are not a fleet's (each is kept until it goes quiet). */
const MAX_PEERS = 1_000;

export type { RedisStore, RedisStoreOptions, StoreEvent } from './redis-store-options.js';

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
  return new FleetRedisStore(o);
}

class FleetRedisStore implements RedisStore {
  readonly replica: string;
  readonly items: SharedItems;
  private readonly keys: ReturnType<typeof redisKeys>;
  private readonly shownUrl: string;
  private readonly heartbeatMs: number;
  private readonly redis: RedisConnections;
  private readonly circuits: SharedCircuits;
  private readonly decode: ReturnType<typeof fleetMessageDecoder>;
  private fleet: FleetLink | undefined;
  private readonly listeners: Array<(scope: string) => void> = [];
  private readonly peers = new Map<string, number>();
  private readonly counts = { fallbacks: 0, rejoins: 0, errors: 0, rejected: 0 };
  private readonly bounds: FleetBounds;
  private shared = false;
  private everJoined = false;
  private announcedAtStart = false;
  private lastError: string | undefined;
  private joining = false;
  /** Circuit news heard while not joined, applied after the join's snapshot. */
  private early: Array<[string, string]> = [];
  private flushing = false;
  private readonly writes = new FleetWrites();
  private closed = false;
  private readonly joinWaiters = new JoinWaiters();
  private readonly flushTimer: ReturnType<typeof setInterval>;
  private readonly heartbeatTimer: ReturnType<typeof setInterval>;

  constructor(private readonly o: RedisStoreOptions) {
    this.replica = o.replica;
    this.keys = redisKeys(o.keyPrefix);
    this.shownUrl = redactRedisUrl(o.url);
    this.heartbeatMs = o.heartbeatMs ?? 1000;
    this.bounds = o.bounds ?? DEFAULT_FLEET_BOUNDS;
    this.redis = connectRedis(o);
    this.items = redisItems(this.redis, this.keys);
    this.circuits = new SharedCircuits(
      circuitBackend(this.redis, this.keys),
      () => o.clock.now(),
      (scope) => this.listeners.forEach((l) => l(scope)),
      (error) => this.fail(error),
      o.replica,
      { bounds: this.bounds, onRejected: () => this.reject('a circuit value that is not valid') },
    );
    this.decode = fleetMessageDecoder(o.replica, this.bounds, () => o.clock.now());
    const { cmd, sub } = this.redis;
    for (const conn of [cmd, sub]) {
      conn.on('ready', () => void this.tryJoin());
      conn.on('close', () => this.lose(this.lastError ?? 'connection closed'));
      // ioredis reports every failed reconnection; the log hears of the outage once, through lose().
      conn.on('error', (error: unknown) => {
        this.lastError = reasonOf(error);
      });
    }
    sub.on('message', (_channel: string, message: string) => this.onMessage(message));
    void sub.subscribe(this.keys.channel).catch((error: unknown) => this.fail(error));
    this.flushTimer = setInterval(() => void this.flush(false), o.flushMs);
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.heartbeatMs);
    this.flushTimer.unref();
    this.heartbeatTimer.unref();
  }

  get(scope: string): CircuitState | undefined {
    return this.circuits.get(scope);
  }

  entries(): Iterable<[string, CircuitState]> {
    return this.circuits.list();
  }

  update(scope: string, f: CircuitUpdate): void {
    this.circuits.update(scope, f);
  }

  lease(scope: string, f: (s: CircuitState) => CircuitState | undefined): boolean | Promise<boolean> {
    return this.circuits.lease(scope, f);
  }

  onRemoteChange(listener: (scope: string) => void): void {
    this.listeners.push(listener);
  }

  link(fleet: FleetLink): void {
    this.fleet = fleet;
  }

  health(): StoreHealth {
    return {
      kind: 'redis',
      shared: this.shared,
      fallbacks: this.counts.fallbacks,
      rejoins: this.counts.rejoins,
      errors: this.counts.errors,
      pendingWrites: this.circuits.pendingWrites(),
      peers: this.peers.size,
      rejected: this.counts.rejected,
      ...(this.shared ? {} : { lastError: this.lastError ?? 'not connected yet' }),
    };
  }

  joined(timeoutMs: number): Promise<boolean> {
    if (this.shared) return Promise.resolve(true);
    return this.joinWaiters.wait(timeoutMs);
  }

  /**
   * Says goodbye (a last flush, the presence key deleted, QUIT), but never waits on Redis longer
   * than `closeTimeoutMs` in all: a paused or unreachable Redis cannot hold a stopping router.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    await closeWithin(this.o.clock, this.o.closeTimeoutMs ?? Math.max(2 * this.o.timeoutMs, 1000), this.redis, () =>
      this.goodbye(),
    );
    this.stop();
  }

  private stop(): void {
    this.closed = true;
    clearInterval(this.flushTimer);
    clearInterval(this.heartbeatTimer);
    this.joinWaiters.settle(false);
  }

  private async goodbye(): Promise<void> {
    await this.flush(true).catch(() => {});
    this.stop();
    const { cmd } = this.redis;
    if (cmd.status === 'ready') await cmd.del(this.keys.replica(this.o.replica)).catch(() => {});
  }

  private emit(e: StoreEvent): void {
    try {
      this.o.onEvent?.(e);
    } catch {
      // A logger that throws must not break the store.
    }
  }

  /** Redis is out of reach (or too slow): serve on local state. */
  private lose(reason: string): void {
    if (this.closed) return;
    this.early = [];
    this.lastError = reason;
    if (this.shared) {
      this.shared = false;
      this.counts.fallbacks++;
      this.circuits.leave();
      this.emit({ kind: 'left', url: this.shownUrl, reason, atStart: false });
    } else if (!this.everJoined && !this.announcedAtStart) {
      this.announcedAtStart = true;
      this.emit({ kind: 'left', url: this.shownUrl, reason, atStart: true });
      // Nobody waits for a join that just failed: the replica starts on local state now.
      this.joinWaiters.settle(false);
    }
  }

  /** A value read from Redis that is not valid: dropped, counted, and said once (what it was, never its text). */
  private reject(what: string): void {
    if (this.counts.rejected++ === 0) this.emit({ kind: 'rejected', url: this.shownUrl, what });
  }

  private fail(error: unknown): void {
    this.counts.errors++;
    this.lose(reasonOf(error));
  }

  /** Joins (or rejoins) the fleet once both connections are up: reads its state, writes back ours. */
  private async tryJoin(): Promise<void> {
    const { cmd, sub } = this.redis;
    if (this.closed || this.shared || this.joining || cmd.status !== 'ready' || sub.status !== 'ready') return;
    this.joining = true;
    try {
      await cmd.set(this.keys.replica(this.o.replica), '1', 'PX', this.heartbeatMs * 5);
      // Loaded now, the script's first use is one round trip, not a NOSCRIPT answer and a second.
      await cmd.script('LOAD', CAS_SCRIPT);
      const stored = await readFleetState(cmd, this.keys, this.bounds, this.o.clock);
      if (this.closed) return;
      this.joinWith(stored);
    } catch (error) {
      this.fail(error);
    } finally {
      this.joining = false;
    }
  }

  /** The fleet's state is read: this replica's circuits merge with it, and it adopts the stored limits. */
  private joinWith(stored: FleetState): void {
    if (stored.rejected > 0) this.reject('stored limits that are not valid');
    const pushed = this.circuits.rejoin(stored.circuits);
    this.shared = true;
    for (const [scope, value] of this.early) this.circuits.onMessage(scope, value);
    this.early = [];
    const now = this.o.clock.now();
    if (stored.limits.length > 0) this.fleet?.apply('fleet', { limits: stored.limits, budget: [], usage: [] }, now);
    if (this.everJoined) this.counts.rejoins++;
    this.emit({ kind: 'joined', url: this.shownUrl, prefix: this.o.keyPrefix, pushed, rejoin: this.everJoined });
    this.everJoined = true;
    this.lastError = undefined;
    this.joinWaiters.settle(true);
    void this.flush(true);
  }

  /**
   * Publishes this replica's news (limits, in-flight counts, budget counts) in one message; with
   * `store`, also writes the latest limits (for replicas that join later) and the usage counted
   * since the last write (the fleet's totals) to Redis. One round trip either way.
   */
  private async flush(full: boolean, store = full): Promise<void> {
    if (!this.shared || !this.fleet || this.flushing || this.closed) return;
    const facts = this.fleet.collect(full);
    this.writes.add(facts);
    const report = encodeReport(this.o.replica, facts);
    const writes = store && this.writes.pending;
    if (report === undefined && !writes) return;
    this.flushing = true;
    const p = this.redis.cmd.pipeline();
    if (report !== undefined) p.publish(this.keys.channel, report);
    if (writes) this.writes.writeTo(p, this.keys);
    try {
      const results = (await p.exec()) ?? [];
      const failed = results.find(([e]) => e);
      if (failed) this.fail(failed[0]);
    } catch (error) {
      this.fail(error);
    } finally {
      this.flushing = false;
    }
  }

  private async heartbeat(): Promise<void> {
    if (this.closed) return;
    const now = this.o.clock.now();
    this.fleet?.expire(now - 3 * this.heartbeatMs);
    for (const [id, at] of this.peers) if (at < now - 3 * this.heartbeatMs) this.peers.delete(id);
    if (!this.shared) return this.tryJoin();
    try {
      const kept = await this.redis.cmd.set(this.keys.replica(this.o.replica), '1', 'PX', this.heartbeatMs * 5, 'XX');
      if (kept === null && this.shared) {
        // Our presence is gone: Redis restarted empty or was flushed. Everything the fleet knew is
        // gone with it; rejoin and write back what this replica knows.
        this.lose('Redis lost its data (restarted empty or flushed)');
        return this.tryJoin();
      }
    } catch (error) {
      return this.fail(error);
    }
    return this.flush(true);
  }

  private onMessage(message: string): void {
    const m = this.decode(message);
    if (m === undefined) return;
    if (m.kind === 'invalid') return this.reject(m.why);
    if (m.kind === 'circuit') {
      if (this.shared) this.circuits.onMessage(m.scope, m.value);
      // News heard before this replica has (re)joined may be newer than the snapshot it is about to
      // read (another replica writing back as it rejoins): kept, and applied after the snapshot.
      // Versions decide, so a stale one is ignored. Bounded: past it the snapshot must do.
      else if (this.early.length < EARLY_NEWS_MAX) this.early.push([m.scope, m.value]);
      return;
    }
    if (!this.shared) return;
    if (!this.peers.has(m.from) && this.peers.size >= MAX_PEERS)
      return this.reject('a report from one replica too many');
    const now = this.o.clock.now();
    this.peers.set(m.from, now);
    this.fleet?.apply(m.from, m.facts, now);
  }
}
