/** Faults a group's hash holds at most; adding one more is refused (removed ones count until the group ends). */
export const MAX_SHARED_FAULTS = 500;

/**
 * Shares one fault change: numbers it, stores the fault's entry in the group's hash and announces
 * the change on the group's channel, in one step, so that the hash read as of change n holds
 * every change up to n and none after. KEYS: hash, counter. ARGV: id, op, entry, channel,
 * most faults. Returns the change's number, or -1 when the hash is full.
 */
export const SHARE_FAULT_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then
  return -1
end
local n = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('EXPIRE', KEYS[1], 86400)
redis.call('EXPIRE', KEYS[2], 86400)
redis.call('PUBLISH', ARGV[4], cjson.encode({ seq = n, op = ARGV[2], id = ARGV[1], entry = ARGV[3] }))
return n
`;

/**
 * Reads a group's hash as of its last change: { number, skipped, id1, entry1, ... }. Fields with a
 * name over `ARGV[2]` or a value over `ARGV[3]` characters, and any past `ARGV[1]` fields, are
 * skipped on the server (counted, never sent). KEYS: hash, counter.
 */
export const READ_FAULTS_SCRIPT = `
local seq = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
local out = { math.floor(seq), 0 }
local skipped = 0
for _, k in ipairs(redis.call('HKEYS', KEYS[1])) do
  if #out >= 2 + 2 * tonumber(ARGV[1]) or #k > tonumber(ARGV[2]) or redis.call('HSTRLEN', KEYS[1], k) > tonumber(ARGV[3]) then
    skipped = skipped + 1
  else
    out[#out + 1] = k
    out[#out + 1] = redis.call('HGET', KEYS[1], k)
  end
end
out[2] = skipped
return out
`;
