/**
 * Every Redis key and channel a fleet uses, under one prefix. Scopes and targets are built from
 * the config's ids (`limit:openai/main/gpt-4o`), never from a key's value, so nothing secret is
 * ever written to Redis.
 */
export function redisKeys(prefix: string) {
  return {
    /** A circuit: `<seq>|<state JSON>`. */
    circuit: (scope: string) => `${prefix}c:${scope}`,
    /** SCAN pattern matching every circuit (glob characters in the prefix escaped). */
    circuitPattern: `${prefix.replace(/[*?[\]\\]/g, '\\$&')}c:*`,
    circuitPrefix: `${prefix}c:`,
    /** Orders every circuit write: messages older than what a replica has are ignored. */
    seq: `${prefix}seq`,
    /** Hash: target → the latest limits a replica observed (JSON). */
    limits: `${prefix}limits`,
    /** Hash per target: the fleet's usage counters. */
    usage: (target: string) => `${prefix}usage:${target}`,
    /** A replica's presence; when it vanishes, Redis lost its data (restarted empty or flushed). */
    replica: (id: string) => `${prefix}replica:${id}`,
    /** Circuit changes and replicas' reports. */
    channel: `${prefix}events`,
    /** Hash per caller (a hash of its credential): item id → a Responses item's JSON. */
    items: (caller: string) => `${prefix}items:${caller}`,
    /** Sorted set per caller: item ids by when they were written, for the per-caller cap. */
    itemOrder: (caller: string) => `${prefix}items-order:${caller}`,
  };
}

/**
 * Keeps one Responses item and holds its caller to the cap, oldest out, in one atomic step; both
 * keys live `ttl` ms after the caller's last write. Ordered by Redis's own clock.
 * KEYS: items hash, order set. ARGV: id, JSON, cap, TTL ms.
 */
export const ITEM_SCRIPT = `
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(t[1]) * 1000000 + tonumber(t[2]), ARGV[1])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  local old = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #old, 2 do redis.call('HDEL', KEYS[1], old[i]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
`;

/**
 * Compare-and-set of a circuit, numbered and announced in the same atomic step.
 * KEYS: circuit, seq. ARGV: expected ('' for none), state JSON, TTL ms, channel, scope, seq TTL ms.
 * Returns {1, stored value} when set, {0, current value} when another write came first.
 */
export const CAS_SCRIPT = `
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return {0, current} end
local seq = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
local value = seq .. '|' .. ARGV[2]
redis.call('SET', KEYS[1], value, 'PX', ARGV[3])
redis.call('PUBLISH', ARGV[4], cjson.encode({c = ARGV[5], v = value}))
return {1, value}
`;

/** A Redis URL with its password (and user) hidden, for logs and `/state`. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.username && u.password) u.username = '***';
    return u.toString();
  } catch {
    return 'redis://(unparseable URL)';
  }
}
