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
  };
}

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
