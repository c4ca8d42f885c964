-- A waiting call leaves the waiter queue of permits p{e} (it gave up or was interrupted) and the waiter that
-- became eligible in its place is told (permits.lua).
--
-- KEYS[1]  holders               p{e}
-- KEYS[2]  waiter queue          p{e}:waiters
-- KEYS[3]  waiter deadlines      p{e}:waiter-deadlines
-- ARGV[1]  the call's waiter id
-- ARGV[2]  limit
-- ARGV[3]  waiter channel prefix p{e}:released:
-- ARGV[4]  '1' to publish with SPUBLISH (Redis 7.0+ cluster), else PUBLISH
--
-- Returns 1.
redis.replicate_commands() -- TIME before writes: replicate effects (the default since Redis 5; kept for 6.2)
--@include permits.lua
leave(KEYS[2], KEYS[3], ARGV[1])
if redis.call('TYPE', KEYS[1]).ok ~= 'string' then
  noticeEligible(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[2]), nowMillis(), ARGV[3], ARGV[4])
end
return 1
