-- Releases a lock: compare-and-delete, then a release notice for waiters in other processes.
--
-- KEYS[1]  lock key              p{e}
-- ARGV[1]  the holder's token
-- ARGV[2]  release channel       p{e}:released (same hash tag, so SPUBLISH stays in the key's shard)
-- ARGV[3]  '1' to publish with SPUBLISH (Redis 7.0+ cluster: sharded pub/sub), else PUBLISH
--
-- Returns 1 when the key held ARGV[1] and was deleted (the notice was published);
--         2 the same, and a contender of another process marked the key ('+' after the token) while it
--           was held: it waits for this release;
--         0 when the key is gone or holds another token (nothing changed: the hold was lost).
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, #ARGV[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  if ARGV[3] == '1' then
    redis.call('SPUBLISH', ARGV[2], ARGV[1])
  else
    redis.call('PUBLISH', ARGV[2], ARGV[1])
  end
  if #held > #ARGV[1] then
    return 2
  end
  return 1
end
return 0
