-- head: the server time and the earliest due time (read only).
--
-- KEYS[1] due zset (of level 0; the other levels' zsets derive from it, levels.lua)
-- returns {now micros, earliest due ms of any level or -1 when no job waits}
--@include envelope.lua
--@include levels.lua
local t = redis.call('TIME')
local head = earliestDue(KEYS[1])
return {tonumber(t[1]) * 1000000 + tonumber(t[2]), head or -1}
