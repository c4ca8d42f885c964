-- A waiter leaves the queue of a lock key (its wait ran out, it was interrupted, or it failed): its entry is
-- removed, and if the key was reserved for it, the reservation passes to the next live waiter (told on its
-- channel) or the key is deleted (waiters.lua).
--
-- KEYS[1]  lock key              p{e}
-- KEYS[2]  waiter queue          p{e}:waiters
-- KEYS[3]  waiter deadlines      p{e}:waiter-deadlines
-- ARGV[1]  the waiter's id
-- ARGV[2]  life of a waiter entry in ms
-- ARGV[3]  waiter channel prefix p{e}:released:
-- ARGV[4]  '1' to publish with SPUBLISH (Redis 7.0+ cluster: sharded pub/sub), else PUBLISH
--
-- Returns 1 when the key was reserved for the waiter (and passed on or deleted), else 0.
redis.replicate_commands() -- TIME before writes: replicate effects (the default since Redis 5; kept for 6.2)
--@include waiters.lua
leave(KEYS[2], KEYS[3], ARGV[1])
local held = redis.pcall('GET', KEYS[1])
if held == '~' .. ARGV[1] then
  passOn(KEYS[1], KEYS[2], KEYS[3], nowMillis(), tonumber(ARGV[2]), ARGV[3], ARGV[4], '~')
  return 1
end
return 0
