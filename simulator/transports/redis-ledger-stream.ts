import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import type { LedgerRow } from '../ledger/ledger-row.js';
import { LEDGER_ROWS_PER_ENTRY, parseLedgerEntry, type LedgerStreamEntry } from '../ledger/parse-ledger-entry.js';

export type { LedgerStreamEntry } from '../ledger/parse-ledger-entry.js';

/** How far ahead of this host's clock a row's times may be (another host's clock may run ahead), ms. */
const CLOCK_SKEW_MS = 60_000;

/**
 * Entries kept in a group's ledger stream at most (approximately: `MAXLEN ~`). Readers read as
 * rows come, so this bounds only how far one may fall behind; a batch trimmed before it was read
 * is a gap in its worker's numbering, reported as missing rows, never skipped silently.
 */
export const LEDGER_STREAM_MAXLEN = 10_000;
/** Entries sent in one pipelined write at most. */
const ENTRIES_PER_WRITE = 10;
/** Rows a worker holds while Redis does not take them; past that the oldest are dropped, and counted. */
const MAX_QUEUED_ROWS = 50_000;

/** The stream every worker of the group whose key prefix is `prefix` adds its attempts to. */
export const ledgerStreamKey = (prefix: string): string => `${prefix}:ledger`;

let RedisCtor: typeof RedisClient | undefined;
function connect(url: string, name: string, commandTimeout: number): RedisClient {
  RedisCtor ??= (createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient }).Redis;
  const r = new RedisCtor(url, {
    maxRetriesPerRequest: 1,
    commandTimeout,
    retryStrategy: (times) => Math.min(100 * times, 1000),
    connectionName: name,
  });
  r.on('error', () => {}); // each command's failure reaches its caller; reconnecting is automatic
  return r;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Opens a group's ledger stream (it lives a day at most) before any worker adds to it; the
 * function returned deletes it once the group's ledger is complete.
 */
export async function openLedgerStream(url: string, prefix: string): Promise<() => Promise<void>> {
  const redis = connect(url, 'throttlelab:ledger-stream', 2000);
  const key = ledgerStreamKey(prefix);
  await redis.xadd(key, 'MAXLEN', '~', LEDGER_STREAM_MAXLEN, '*', 'w', 'primary', 'hello', '1');
  await redis.expire(key, 86_400);
  return async () => {
    await redis.del(key).catch(() => 0);
    redis.disconnect();
  };
}

/** What a worker's publisher sent. */
export interface PublishedLedger {
  /** Rows handed to it. */
  total: number;
  /** Rows never sent: dropped while Redis did not take them, or still queued at the deadline. */
  unsent: number;
}

/** Adds one worker's rows to its group's ledger stream. */
export interface LedgerStreamPublisher {
  write(row: LedgerRow): void;
  /** Sends what is queued (for at most `deadlineMs`), then the closing count, and disconnects. */
  close(deadlineMs?: number): Promise<PublishedLedger>;
}

/**
 * Publishes `worker`'s rows to the stream of group `prefix`, numbered from 1, in batches off the
 * request path (one pipelined write carries up to a thousand rows). While Redis does not take
 * them they wait in a bounded queue and are sent again in order; `onError` hears of the first
 * failure of each outage.
 */
export function publishLedgerStream(o: {
  url: string;
  prefix: string;
  worker: string;
  onError?: (error: unknown) => void;
}): LedgerStreamPublisher {
  const redis = connect(o.url, `throttlelab:ledger-stream:${o.worker}`, 2000);
  const key = ledgerStreamKey(o.prefix);
  const queue: string[] = [];
  let first = 1; // the number of queue[0]
  let total = 0;
  let dropped = 0;
  let helloSent = false;
  let failing = false;
  let closing = false;
  let sending: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const send = async (): Promise<void> => {
    const pipeline = redis.pipeline();
    const add = (...fields: Array<string | number>) =>
      pipeline.xadd(key, 'MAXLEN', '~', LEDGER_STREAM_MAXLEN, '*', 'w', o.worker, ...fields);
    if (!helloSent) add('hello', '1');
    const counts: number[] = [];
    for (let at = 0; at < queue.length && counts.length < ENTRIES_PER_WRITE; at += LEDGER_ROWS_PER_ENTRY) {
      const chunk = queue.slice(at, at + LEDGER_ROWS_PER_ENTRY);
      add('n', first + at, 'rows', chunk.join('\n'));
      counts.push(chunk.length);
    }
    const results = (await pipeline.exec().catch((e: unknown) => [[e, null]])) ?? [];
    let i = 0;
    if (!helloSent) {
      if (results[0]?.[0]) return fail(results[0][0]);
      helloSent = true;
      i = 1;
    }
    for (const n of counts) {
      const error = results[i++]?.[0];
      if (error) return fail(error);
      queue.splice(0, n);
      first += n;
    }
    failing = false;
  };
  const fail = (error: unknown) => {
    if (!failing) o.onError?.(error);
    failing = true;
  };
  const schedule = (delayMs: number) => {
    if (sending || timer || closing) return;
    timer = setTimeout(() => {
      timer = undefined;
      sending = send().finally(() => {
        sending = undefined;
        if (queue.length) schedule(failing ? 250 : 0);
      });
    }, delayMs);
  };

  return {
    write(row) {
      total++;
      if (queue.length >= MAX_QUEUED_ROWS) {
        queue.shift();
        first++;
        dropped++;
      }
      queue.push(JSON.stringify(row));
      schedule(10);
    },
    async close(deadlineMs = 5000) {
      closing = true;
      const giveUpAt = Date.now() + deadlineMs;
      while ((queue.length || sending || !helloSent) && Date.now() < giveUpAt) {
        if (timer) {
          clearTimeout(timer);
          timer = undefined;
        }
        if (!sending) sending = send().finally(() => (sending = undefined));
        await sending;
        if (failing) await sleep(100);
      }
      clearTimeout(timer);
      await redis
        .xadd(key, 'MAXLEN', '~', LEDGER_STREAM_MAXLEN, '*', 'w', o.worker, 'end', total)
        .catch((e: unknown) => fail(e));
      redis.disconnect();
      return { total, unsent: dropped + queue.length };
    },
  };
}

/** The worker an entry's fields name (`w`, a field name at an even index). */
function workerOf(fields: readonly string[]): string {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'w') return fields[i + 1]!;
  return '';
}

/** Reads a ledger stream as it grows, until closed. */
export interface LedgerStreamFollower {
  close(): Promise<void>;
}

/**
 * Reads the stream of group `prefix` from its start, handing each entry to `onEntry` in order,
 * checked (`parseLedgerEntry`): entries of unknown workers and malformed rows arrive refused.
 * Each read blocks half a second at most, and a failed one is retried a quarter second later.
 */
export function followLedgerStream(o: {
  url: string;
  prefix: string;
  onEntry: (entry: LedgerStreamEntry) => void;
  /** Whether an id names a worker of the group (`isGroupWorker`); others' entries are refused. */
  isWorker: (worker: string) => boolean;
  /** Workers whose entries are not wanted: skipped before their rows are parsed. */
  ignore?: (worker: string) => boolean;
}): LedgerStreamFollower {
  // The stream lives a day at most: no row in it can be older than a day before this reader.
  const notBefore = Date.now() - 86_400_000;
  const redis = connect(o.url, 'throttlelab:ledger-follow', 5000);
  const key = ledgerStreamKey(o.prefix);
  let closed = false;
  let last = '0-0';
  const loop = (async () => {
    while (!closed) {
      try {
        const reply = (await redis.xread('COUNT', 200, 'BLOCK', 500, 'STREAMS', key, last)) as Array<
          [string, Array<[string, string[]]>]
        > | null;
        for (const [, entries] of reply ?? [])
          for (const [id, fields] of entries) {
            last = id;
            if (o.ignore?.(workerOf(fields))) continue;
            const bounds = { notBefore, notAfter: Date.now() + CLOCK_SKEW_MS };
            const entry = parseLedgerEntry(fields, { isWorker: o.isWorker, bounds });
            if (entry) o.onEntry(entry);
          }
      } catch {
        if (!closed) await sleep(250);
      }
    }
  })();
  return {
    async close() {
      closed = true;
      redis.disconnect();
      await loop;
    },
  };
}
