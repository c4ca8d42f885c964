-- One queue's counts in one call (read only).
-- KEYS: [1] due zset, [2] in-flight zset, [3] dead zset
-- ARGV: none
-- Returns: {now ms, waiting (ZCARD due), due now (score <= now), in flight, dead, earliest due ms or -1}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local headMs = -1
if head[2] then
  headMs = tonumber(head[2])
end
return {now, redis.call('ZCARD', KEYS[1]), redis.call('ZCOUNT', KEYS[1], '-inf', now),
  redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]), headMs}
