-- Releases a lock: compare-and-delete; if the key was marked (a waiter of another process queued behind the
-- holder, see acquire.lua), the key is instead reserved for the waiter queue's live head and only the head is
-- told, on its own channel (waiters.lua).
--
-- KEYS[1]  lock key              p{e}
-- KEYS[2]  release record        p{e}:last-release (same hash tag): the token of the last release, kept for
--          ARGV[4] ms, so that a resent release (after a lost reply) recognises its own earlier success
-- KEYS[3]  waiter queue          p{e}:waiters
-- KEYS[4]  waiter deadlines      p{e}:waiter-deadlines
-- ARGV[1]  the holder's token
-- ARGV[2]  waiter channel prefix p{e}:released: (same hash tag, so SPUBLISH stays in the key's shard)
-- ARGV[3]  '1' to publish with SPUBLISH (Redis 7.0+ cluster: sharded pub/sub), else PUBLISH
-- ARGV[4]  how long the release record lives, in ms
-- ARGV[5]  life of a waiter entry in ms (a reservation lives twice that)
--
-- Returns 1 when the key held ARGV[1] and was deleted (no waiter of another process was queued alive);
--         2 when the key held ARGV[1] and is now reserved for the queue's live head, which was told;
--         3 when the key no longer holds ARGV[1] because this token's release already ran (a resend);
--         0 when the key is gone or holds another token and no release of ARGV[1] is recorded (nothing
--           changed: the hold was lost).
redis.replicate_commands() -- TIME before writes: replicate effects (the default since Redis 5; kept for 6.2)
--@include waiters.lua
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, #ARGV[1]) == ARGV[1] then
  if #held == #ARGV[1] then
    redis.call('DEL', KEYS[1])
    redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[4])
    return 1
  end
  local now = nowMillis()
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[4])
  if passOn(KEYS[1], KEYS[3], KEYS[4], now, tonumber(ARGV[5]), ARGV[2], ARGV[3], ARGV[1]) then
    return 2
  end
  return 1
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  return 3
end
return 0
