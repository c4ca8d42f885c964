-- Releases a lock: compare-and-delete, then, if a contender of another process waits, a release notice.
--
-- KEYS[1]  lock key              p{e}
-- KEYS[2]  release record        p{e}:last-release (same hash tag): the token of the last release, kept for
--          ARGV[4] ms, so that a resent release (after a lost reply) recognises its own earlier success
-- ARGV[1]  the holder's token
-- ARGV[2]  release channel       p{e}:released (same hash tag, so SPUBLISH stays in the key's shard)
-- ARGV[3]  '1' to publish with SPUBLISH (Redis 7.0+ cluster: sharded pub/sub), else PUBLISH
-- ARGV[4]  how long the release record lives, in ms
--
-- A contender that fails and will wait marks the holder's value ('+' after the token, see acquire.lua)
-- before it listens, so a release finds the mark whenever someone in another process waits; only then is
-- the notice published (waiters in the holder's own process are handed the lock without Redis).
--
-- Returns 1 when the key held ARGV[1] and was deleted (no one in another process was waiting);
--         2 the same, and the key was marked: the notice was published, another process waits;
--         3 when the key no longer holds ARGV[1] because this token's release already ran (a resend);
--         0 when the key is gone or holds another token and no release of ARGV[1] is recorded (nothing
--           changed: the hold was lost).
--@include notice.lua
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, #ARGV[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[4])
  if #held == #ARGV[1] then
    return 1
  end
  notice(ARGV[3], ARGV[2], ARGV[1])
  return 2
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  return 3
end
return 0
