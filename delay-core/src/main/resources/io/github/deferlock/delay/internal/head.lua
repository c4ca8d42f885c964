-- head: the server time and the earliest due time (read only).
--
-- KEYS[1] due zset
-- returns {now micros, earliest due ms or -1 when no job waits}
local t = redis.call('TIME')
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {tonumber(t[1]) * 1000000 + tonumber(t[2]), head[2] and tonumber(head[2]) or -1}
