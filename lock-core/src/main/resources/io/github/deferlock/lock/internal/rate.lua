-- rate: one start from a rate limiter, GCRA on the server's clock (RedisRateLimiter, gcra.lua).
-- KEYS[1]  the limiter's state, p{e}:rate (a string: the theoretical arrival time in server microseconds)
-- ARGV[1]  the emission interval T = interval / rate, in microseconds (a decimal)
-- ARGV[2]  the burst
-- Returns {granted (1 or 0), microseconds until the next start is allowed (0 when one is), server time of the
-- decision in microseconds}. Not idempotent: a resent call after a lost reply may take a second start.
--@include gcra.lua
local now = gcra_now()
local r = gcra_take(KEYS[1], now, tonumber(ARGV[1]), tonumber(ARGV[2]), 1)
return {r[1], r[2], now}
