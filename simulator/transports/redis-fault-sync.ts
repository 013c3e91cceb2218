import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import { SimError } from '../core/errors.js';
import { ChangeOrder } from '../shared-faults/change-order.js';
import type { FaultChannel, FaultOp } from '../shared-faults/fault-channel.js';
import { MAX_SHARED_FAULTS, READ_FAULTS_SCRIPT, SHARE_FAULT_SCRIPT } from '../shared-faults/fault-scripts.js';
import {
  formatSharedFaultEntry,
  MAX_ENTRY_CHARS,
  parseSharedFaultEntry,
  type SharedFaultEntry,
} from '../shared-faults/shared-fault-entry.js';

/** The hash of a group's shared faults, the counter numbering its changes, and the channel announcing them. */
export const faultKeys = (prefix: string) => ({
  hash: `${prefix}:faults`,
  seq: `${prefix}:faults:seq`,
  channel: `${prefix}:faults:changes`,
});

/** Options of `connectFaultSync`. */
export interface FaultSyncOptions {
  url: string;
  /** The group's key prefix. */
  prefix: string;
  /** Applies one change to this worker's timeline (the simulator's `applyFaultEntry`). */
  apply(op: FaultOp, id: string, entry: SharedFaultEntry): { ok: true } | { ok: false; issues: string[] };
  now(): number;
  /** Told of a change or entry that was skipped, and of Redis trouble. */
  warn(line: string): void;
  /** How long sharing a change may take before it fails, and then how long this worker waits to hear it back (ms, default 1000). */
  timeoutMs?: number;
}

/** The Redis side of a group's live faults; closing ends its connections. */
export interface FaultSync extends FaultChannel {
  close(): Promise<void>;
}

type Change = { op: FaultOp; id: string; entry: SharedFaultEntry } | undefined;

const MAX_ID_CHARS = 64;
/** Warnings about skipped entries a worker prints at most; later ones are only counted. */
const MAX_WARNINGS = 20;
const REREAD_AFTER_MS = 500;
/**
 * How often a worker compares the counter with the changes it applied: a change announced while
 * its channel was resubscribing would otherwise wait for the next change to show the gap.
 */
const CHECK_EVERY_MS = 2000;

let RedisCtor: typeof RedisClient | undefined;
function connect(url: string, name: string, timeoutMs: number): RedisClient {
  RedisCtor ??= (createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient }).Redis;
  const r = new RedisCtor(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs, 1000),
    retryStrategy: (times) => Math.min(100 * times, 1000),
    connectionName: name,
  });
  r.on('error', () => {}); // each command's failure reaches its caller; reconnecting is automatic
  return r;
}

/**
 * Follows a group's live faults on Redis: reads the hash at the start and after every reconnect
 * or gap, applies each numbered change from the channel in order (`ChangeOrder`), and shares this
 * worker's changes. Everything read is validated as the control API validates a fault; a forged
 * entry is skipped with a warning.
 */
export async function connectFaultSync(o: FaultSyncOptions): Promise<FaultSync> {
  const timeoutMs = o.timeoutMs ?? 1000;
  const keys = faultKeys(o.prefix);
  const redis = connect(o.url, 'throttlelab:faults', timeoutMs);
  const sub = connect(o.url, 'throttlelab:faults-sub', timeoutMs);
  const order = new ChangeOrder<Change>();
  const waiters = new Set<{ seq: number; done: () => void }>();
  let warned = 0;
  let closed = false;
  let reading = false;
  let failing = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const warn = (line: string) => {
    if (warned++ < MAX_WARNINGS) o.warn(line);
    else if (warned === MAX_WARNINGS + 1) o.warn('more fault changes were skipped; no more are shown');
  };
  const applyOne = (change: Change) => {
    if (!change) return;
    const applied = o.apply(change.op, change.id, change.entry);
    if (!applied.ok) warn(`skipped the shared fault "${change.id}": ${applied.issues.join('; ')}`);
  };
  const entryOf = (op: FaultOp, id: string, text: string): Change => {
    const parsed = parseSharedFaultEntry(id, text, o.now());
    if (parsed.ok) return { op, id, entry: parsed.entry };
    warn(`skipped the shared fault "${id.slice(0, MAX_ID_CHARS)}" read from Redis: ${parsed.reason}`);
    return undefined;
  };
  const step = (s: { apply: Change[]; read: boolean }) => {
    s.apply.forEach(applyOne);
    for (const w of waiters) if (order.seq >= w.seq) w.done();
    if (s.read) void read();
  };
  const read = async (): Promise<void> => {
    if (closed || reading) return;
    reading = true;
    try {
      const reply = (await redis.eval(
        READ_FAULTS_SCRIPT,
        2,
        keys.hash,
        keys.seq,
        MAX_SHARED_FAULTS,
        MAX_ID_CHARS,
        MAX_ENTRY_CHARS,
      )) as Array<number | string>;
      const [seq, skipped] = reply as [number, number];
      if (skipped > 0) warn(`skipped ${skipped} shared faults read from Redis: too many, or names or entries too long`);
      for (let i = 2; i + 1 < reply.length; i += 2) applyOne(entryOf('update', String(reply[i]), String(reply[i + 1])));
      reading = false;
      failing = false;
      step(order.read(seq));
    } catch (error) {
      reading = false;
      if (closed) return;
      // Once per outage: it tries again every REREAD_AFTER_MS until Redis answers.
      if (!failing)
        o.warn(
          `reading the group's faults from Redis failed (${(error as Error).message}); trying again until it answers`,
        );
      failing = true;
      timer = setTimeout(() => void read(), REREAD_AFTER_MS);
    }
  };
  sub.on('message', (_channel: string, message: string) => {
    const heard = parseChange(message);
    if (!heard) {
      warn(`a message on the group's faults channel is not a change; reading the faults again`);
      return step(order.reread());
    }
    step(order.heard({ seq: heard.seq, change: entryOf(heard.op, heard.id, heard.entry) }));
  });
  // After a reconnect, changes may have been missed: the hash says what they did.
  sub.on('ready', () => !closed && step(order.reread()));
  try {
    await Promise.all([redis.connect(), sub.connect()]);
    await sub.subscribe(keys.channel);
  } catch (error) {
    redis.disconnect();
    sub.disconnect();
    throw new SimError(
      'SIM_REDIS_UNREACHABLE',
      `Failed to follow the group's faults on Redis at ${o.url.replace(/\/\/[^@/]*@/, '//***@')}: ${(error as Error).message}. Start Redis or pass another --redis-url.`,
      { cause: error },
    );
  }
  await read();
  const check = setInterval(() => {
    redis.get(keys.seq).then(
      (n) => Number(n ?? 0) !== order.seq && step(order.reread()),
      () => {}, // Redis down: the reconnect reads the hash
    );
  }, CHECK_EVERY_MS);

  const heardBack = (seq: number) =>
    new Promise<boolean>((resolve) => {
      const waiter = {
        seq,
        done: () => {
          clearTimeout(giveUp);
          waiters.delete(waiter);
          resolve(true);
        },
      };
      const giveUp = setTimeout(() => (waiters.delete(waiter), resolve(false)), timeoutMs);
      waiters.add(waiter);
      if (order.seq >= seq) waiter.done();
    });

  return {
    async share(op, id, entry) {
      let seq: number;
      try {
        seq = Number(
          await redis.eval(
            SHARE_FAULT_SCRIPT,
            2,
            keys.hash,
            keys.seq,
            id,
            op,
            formatSharedFaultEntry(entry),
            keys.channel,
            MAX_SHARED_FAULTS,
          ),
        );
      } catch (error) {
        throw new SimError(
          'SIM_FAULT_NOT_SHARED',
          `Failed to share fault "${id}" with the group's workers: Redis did not take it (${(error as Error).message}). No worker applied it; try again once Redis answers.`,
          { cause: error },
        );
      }
      if (seq < 0)
        throw new SimError(
          'SIM_FAULT_NOT_SHARED',
          `Failed to share fault "${id}" with the group's workers: the group holds ${MAX_SHARED_FAULTS} faults already. No worker applied it.`,
        );
      if (await heardBack(seq)) return;
      // Its announcement was missed (the channel reconnecting): the hash holds it.
      step(order.reread());
      if (await heardBack(seq)) return;
      throw new SimError(
        'SIM_FAULT_NOT_SHARED',
        `Failed to confirm fault "${id}" on this worker: Redis took it, but this worker has not read it back in ${2 * timeoutMs} ms. The other workers apply it; GET /faults shows when this one has.`,
      );
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      clearInterval(check);
      sub.disconnect();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** A change announced on the channel, or undefined when the message is not one. */
function parseChange(message: string): { seq: number; op: FaultOp; id: string; entry: string } | undefined {
  if (message.length > MAX_ENTRY_CHARS + 1024) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { seq, op, id, entry } = value as Record<string, unknown>;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return undefined;
  if (op !== 'add' && op !== 'update' && op !== 'remove') return undefined;
  if (typeof id !== 'string' || id.length > MAX_ID_CHARS || typeof entry !== 'string') return undefined;
  return { seq, op, id, entry };
}
