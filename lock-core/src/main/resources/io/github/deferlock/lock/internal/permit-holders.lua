-- Lists the live holders of permits p{e} (permits.lua), for inspection. Read only; bounded by the limit.
--
-- KEYS[1]  holders               p{e}
-- KEYS[2]  holder records        p{e}:permits
--
-- Returns a flat array: the stored limit (-1 when none), then per live holder its slot, fencing token and
--         remaining lease in ms (server time).
-- Errors: 'WRONGTYPE ...' when the key is a lock or another type.
--@include permits.lua
local bad = checkType(KEYS[1])
if bad then
  return bad
end
local now = nowMillis()
local out = {tonumber(redis.call('HGET', KEYS[2], 'limit') or '-1')}
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES')
for i = 1, #live, 2 do
  local rec = redis.call('HGET', KEYS[2], 't:' .. live[i])
  if rec then
    local slot, fence = string.match(rec, '^(%d+):(%d+)$')
    out[#out + 1] = tonumber(slot)
    out[#out + 1] = tonumber(fence)
    out[#out + 1] = tonumber(live[i + 1]) - now
  end
end
return out
