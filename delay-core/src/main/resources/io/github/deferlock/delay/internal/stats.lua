-- stats: one queue's counts and counters in one call (read only), for gauges, tools and the dashboard.
--
-- KEYS[1] due zset (of level 0; the priority levels' zsets derive from it and are counted too, levels.lua),
-- KEYS[2] in-flight zset, KEYS[3] dead zset, KEYS[4] stats hash, KEYS[5] paused marker
-- returns {now ms, waiting (ZCARD due and its levels: scheduled ones included), due now (score <= now), in flight, dead,
--          earliest due ms or -1 when no job waits, enqueued, acked, dead-lettered, paused since ms or -1 when
--          not paused, held}; enqueued, acked and dead-lettered are the monotonic counters of the stats hash (0 when
--          never incremented); held is the stats hash's gauge 'held' (keylimits.lua): the jobs held back for their
--          concurrency key, which waiting and due now count too (they are due), the earliest due time does not
--@include envelope.lua
--@include levels.lua
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local levels = levelsOf(KEYS[1])
local head = earliestDue(KEYS[1], levels)
local waiting, dueNow = redis.call('ZCARD', KEYS[1]), redis.call('ZCOUNT', KEYS[1], '-inf', now)
for _, level in ipairs(levels) do
  waiting = waiting + redis.call('ZCARD', KEYS[1] .. ':' .. level)
  dueNow = dueNow + redis.call('ZCOUNT', KEYS[1] .. ':' .. level, '-inf', now)
end
local counters = redis.call('HMGET', KEYS[4], 'enqueued', 'acked', 'dead', 'held')
local held = tonumber(counters[4] or 0)
waiting, dueNow = waiting + held, dueNow + held
local paused = redis.call('GET', KEYS[5])
return {now, waiting, dueNow,
  redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]), head or -1,
  tonumber(counters[1] or 0), tonumber(counters[2] or 0), tonumber(counters[3] or 0),
  paused and tonumber(paused) or -1, held}
