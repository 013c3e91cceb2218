/**
 * The shared quota engine in one Lua script, so that a decision is one atomic round trip
 * (EVALSHA) whichever worker takes it. It mirrors the meters in this folder line for line: a
 * token bucket (`t`), a fixed window (`f`), an exact sliding-window log (`s`, a sorted set of
 * `seq:cost` members scored by time) and a concurrency count (`c`).
 *
 * KEYS: per bucket, its state hash and its log. ARGV: mode (`a` admit all-or-nothing, `s` settle),
 * now, count-rejected (1/0), the number of buckets, then per bucket: kind, limit, window, is-requests
 * (1/0), cost, need, fixed-window start and end. Admit answers ok (1/0) and per bucket five numbers
 * as text (Lua numbers would reach Redis truncated to integers): the wait and the units available
 * before, then available, reset and the wait for the same request again after.
 *
 * An admission may carry one more key, the epoch marker of its hash tag (`e:<renew-by>`, set
 * when the group starts), and one more argument, the longest window of the provider. A missing
 * or unreadable marker means Redis lost the tag's counters (restarted empty, flushed): the script
 * then writes `lost:<now>` and answers `lost` and that time instead of deciding; while a `lost`
 * marker is younger than the longest window it answers the same, and after that it restores the
 * marker and decides. Markers live a day plus the longest window, renewed by decisions.
 */
export const QUOTA_SCRIPT = `
local mode, now, countRejected, n = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1', tonumber(ARGV[4])
local INF = math.huge
local function fmt(x)
  if x ~= x then return 'nan' end
  if x == INF then return 'inf' end
  return string.format('%.17g', x)
end
local function costOf(member) return tonumber(string.match(member, ':(.+)$')) end
local function advance(b)
  if b.kind == 't' then
    if now > b.y then b.x = math.min(b.limit, b.x + ((now - b.y) * b.limit) / b.window); b.y = now end
  elseif b.kind == 'f' then
    if now >= b.z or now < b.y then b.y = b.fs; b.z = b.fe; b.x = 0 end
  elseif b.kind == 's' then
    local horizon = fmt(now - b.window)
    local old = redis.call('ZRANGEBYSCORE', b.log, '-inf', horizon)
    if #old > 0 then
      for _, m in ipairs(old) do b.x = b.x - costOf(m) end
      redis.call('ZREMRANGEBYSCORE', b.log, '-inf', horizon)
    end
  end
end
local function avail(b)
  if b.kind == 't' then return b.x end
  return b.limit - b.x
end
local function wait(b, cost)
  if cost > b.limit then return INF end
  if b.kind == 't' then
    if b.x >= cost then return 0 end
    return ((cost - b.x) * b.window) / b.limit
  elseif b.kind == 'f' then
    if b.x + cost <= b.limit then return 0 end
    return b.z - now
  elseif b.kind == 's' then
    local used = b.x
    if used + cost <= b.limit then return 0 end
    local log = redis.call('ZRANGE', b.log, 0, -1, 'WITHSCORES')
    for i = 1, #log, 2 do
      used = used - costOf(log[i])
      if used + cost <= b.limit then return tonumber(log[i + 1]) + b.window - now end
    end
    return b.window
  end
  if b.x + cost <= b.limit then return 0 end
  return 0 / 0
end
local function reset(b)
  if b.kind == 't' then return ((b.limit - b.x) * b.window) / b.limit end
  if b.kind == 'f' then
    if b.x > 0 then return b.z - now end
    return 0
  end
  if b.kind == 's' then
    local last = redis.call('ZRANGE', b.log, -1, -1, 'WITHSCORES')
    if #last > 0 then return tonumber(last[2]) + b.window - now end
  end
  return 0
end
local function consume(b, cost)
  if b.kind == 't' then b.x = b.x - cost
  elseif b.kind == 'c' then b.x = math.max(0, b.x + cost)
  else
    if b.kind == 's' then
      b.z = b.z + 1
      redis.call('ZADD', b.log, fmt(now), b.z .. ':' .. fmt(cost))
    end
    b.x = b.x + cost
  end
end
local function save(b)
  redis.call('HSET', b.key, 'x', fmt(b.x), 'y', fmt(b.y), 'z', fmt(b.z))
  if b.window > 0 then
    -- Gone only once the bucket would be full again: recreated full, it is the same bucket.
    local ttl = math.ceil(math.max(reset(b), 0) + b.window) + 1000
    redis.call('PEXPIRE', b.key, ttl)
    if b.kind == 's' then redis.call('PEXPIRE', b.log, ttl) end
  end
end
local mark = mode == 'a' and KEYS[2 * n + 1]
if mark then
  local longest = tonumber(ARGV[5 + 8 * n]) or 0
  local DAY = 86400000
  local ttl = DAY + longest
  local kind, at = nil, nil
  local v = redis.call('GET', mark)
  if v then
    local k, t = string.match(v, '^(%a+):(.*)$')
    kind, at = k, tonumber(t)
    if at and (at ~= at or at == INF or at == -INF) then at = nil end
  end
  if kind == 'e' and at then
    -- Renewed half a day ahead; a renew-by time too far ahead is not one this script wrote.
    if at <= now or at > now + DAY then redis.call('SET', mark, 'e:' .. fmt(now + DAY / 2), 'PX', ttl) end
  elseif kind == 'lost' and at and at <= now + 60000 then
    if now < at + longest then return { 'lost', fmt(at) } end
    redis.call('SET', mark, 'e:' .. fmt(now + DAY / 2), 'PX', ttl)
  else
    redis.call('SET', mark, 'lost:' .. fmt(now), 'PX', ttl)
    return { 'lost', fmt(now) }
  end
end
local B = {}
for i = 1, n do
  local a = 4 + (i - 1) * 8
  local b = { key = KEYS[2 * i - 1], log = KEYS[2 * i], kind = ARGV[a + 1], limit = tonumber(ARGV[a + 2]),
    window = tonumber(ARGV[a + 3]), requests = ARGV[a + 4] == '1', cost = tonumber(ARGV[a + 5]),
    need = tonumber(ARGV[a + 6]), fs = tonumber(ARGV[a + 7]), fe = tonumber(ARGV[a + 8]) }
  local h = redis.call('HMGET', b.key, 'x', 'y', 'z')
  b.x, b.y, b.z = tonumber(h[1]), tonumber(h[2]), tonumber(h[3])
  if b.x == nil then
    -- A bucket is created full at its first use, as QuotaSet creates it.
    if b.kind == 't' then b.x, b.y, b.z = b.limit, now, 0 else b.x, b.y, b.z = 0, 0, 0 end
  end
  B[i] = b
end
if mode == 's' then
  for _, b in ipairs(B) do
    advance(b)
    if b.cost ~= 0 then consume(b, b.cost) end
    save(b)
  end
  return 1
end
local ok = 1
for _, b in ipairs(B) do
  advance(b)
  b.w0 = 0
  if b.need > 0 then b.w0 = wait(b, b.need) end
  if b.w0 > 0 or b.w0 ~= b.w0 then ok = 0 end
  b.a0 = avail(b)
end
for _, b in ipairs(B) do
  if ok == 1 then
    if b.cost ~= 0 then consume(b, b.cost) end
  elseif countRejected and b.requests and avail(b) >= 1 then
    consume(b, 1)
  end
end
local out = { ok }
for _, b in ipairs(B) do
  local again = 0
  if b.kind ~= 'c' and b.need > 0 then
    again = wait(b, b.need)
    if again ~= again or again == INF then again = 0 end
  end
  out[#out + 1] = fmt(b.w0)
  out[#out + 1] = fmt(b.a0)
  out[#out + 1] = fmt(avail(b))
  out[#out + 1] = fmt(reset(b))
  out[#out + 1] = fmt(again)
  save(b)
end
return out
`;
