-- purge: deletes up to ARGV[1] of the oldest dead letters.
--
-- KEYS[1] dead zset, KEYS[2] jobs hash, KEYS[3] errors hash (a job's last error and progress)
-- ARGV[1] max number to delete in this call
-- returns the number of dead letters deleted
--@include progress_field.lua
local dead = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
for _, member in ipairs(dead) do
  local id = string.sub(member, 13)
  redis.call('ZREM', KEYS[1], member)
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id, progressField(id))
end
return #dead
