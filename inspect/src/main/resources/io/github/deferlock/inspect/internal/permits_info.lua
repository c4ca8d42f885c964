-- One permits name's state (read only; docs/lock-keys.md, "Permit scripts").
-- KEYS: [1] holders (the lock key, a zset: token -> lease deadline in server ms), [2] holder records
--       (<key>:permits, hash: 'limit', 't:' .. token -> '<slot>:<fencing token>'), [3] waiter queue
--       (<key>:waiters), [4] fencing counter (<key>:fence); all share the name's {e} slot
-- ARGV: none
-- Returns: {type of KEYS[1], stored limit or -1, waiters queued, counter or '', then per live holder its slot,
--           fencing token and remaining lease in ms}
-- Cost: bounded by the limit (at most 1,000 live holders). Never a scan.
local kind = redis.call('TYPE', KEYS[1]).ok
local fence = redis.pcall('GET', KEYS[4])
if type(fence) ~= 'string' then
  fence = ''
end
local waiters = redis.pcall('LLEN', KEYS[3])
if type(waiters) ~= 'number' then
  waiters = 0
end
if kind ~= 'zset' then
  return {kind, -1, waiters, fence}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(redis.pcall('HGET', KEYS[2], 'limit') or '-1') or -1
local out = {kind, limit, waiters, fence}
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES')
for i = 1, #live, 2 do
  local rec = redis.call('HGET', KEYS[2], 't:' .. live[i])
  if rec then
    local slot, token = string.match(rec, '^(%d+):(%d+)$')
    out[#out + 1] = tonumber(slot)
    out[#out + 1] = tonumber(token)
    out[#out + 1] = tonumber(live[i + 1]) - now
  end
end
return out
