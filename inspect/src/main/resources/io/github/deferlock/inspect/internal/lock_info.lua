-- One lock's state (read only).
-- KEYS: [1] lock key, [2] fencing counter, [3] parked FIFO (<lock key>:parked),
--       [4] parked items (<lock key>:parked-items), [5] permit records (<lock key>:permits); all five share the
--       lock's {e} slot (docs/lock-keys.md)
-- ARGV: none
-- Returns: {type of the lock key, value or '', PTTL, counter or '', items parked, park time of the head in
--           epoch ms or -1 (nothing parked, or a head whose payload has no firstConflictMillis), live permit
--           holders (0 unless the key is permits: a zset), their limit or '', ms until the first of their leases
--           ends or -1}
-- Cost: TYPE, GET, PTTL, GET; LLEN; with parked work LINDEX 0, HGET and a decode of the head's payload (at most
-- the deferral queue's maxPayloadBytes); for permits TIME, ZCOUNT, ZRANGEBYSCORE LIMIT 1, HGET. Never a scan.
local kind = redis.call('TYPE', KEYS[1]).ok
local value = ''
if kind == 'string' then
  value = redis.call('GET', KEYS[1])
end
local fence = redis.pcall('GET', KEYS[2])
if type(fence) ~= 'string' then
  fence = ''
end
local parked = redis.pcall('LLEN', KEYS[3])
if type(parked) ~= 'number' then
  parked = 0
end
local since = -1
if parked > 0 then
  local head = redis.call('LINDEX', KEYS[3], 0)
  local payload = head and redis.pcall('HGET', KEYS[4], head)
  if type(payload) == 'string' then
    local ok, item = pcall(cjson.decode, payload)
    if ok and type(item) == 'table' and type(item.firstConflictMillis) == 'number' then
      since = item.firstConflictMillis
    end
  end
end
local holders, limit, firstEnds = 0, '', -1
if kind == 'zset' and KEYS[5] then -- permits (RedisLocks.permits): live holders are those whose lease is ahead
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  holders = redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
  local first = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if first[2] then
    firstEnds = tonumber(first[2]) - now
  end
  local l = redis.pcall('HGET', KEYS[5], 'limit')
  if type(l) == 'string' then
    limit = l
  end
end
return {kind, value, redis.call('PTTL', KEYS[1]), fence, parked, since, holders, limit, firstEnds}
