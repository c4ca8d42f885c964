-- stats: one queue's counts and counters in one call (read only), for gauges, tools and the dashboard.
--
-- KEYS[1] due zset, KEYS[2] in-flight zset, KEYS[3] dead zset, KEYS[4] stats hash, KEYS[5] paused marker
-- returns {now ms, waiting (ZCARD due: scheduled ones included), due now (score <= now), in flight, dead,
--          earliest due ms or -1 when no job waits, enqueued, acked, dead-lettered, paused since ms or -1 when
--          not paused}; enqueued, acked and dead-lettered are the monotonic counters of the stats hash (0 when
--          never incremented)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local counters = redis.call('HMGET', KEYS[4], 'enqueued', 'acked', 'dead')
local paused = redis.call('GET', KEYS[5])
return {now, redis.call('ZCARD', KEYS[1]), redis.call('ZCOUNT', KEYS[1], '-inf', now),
  redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]), head[2] and tonumber(head[2]) or -1,
  tonumber(counters[1] or 0), tonumber(counters[2] or 0), tonumber(counters[3] or 0),
  paused and tonumber(paused) or -1}
