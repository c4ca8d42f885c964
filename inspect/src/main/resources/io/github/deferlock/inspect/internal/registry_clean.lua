-- Deletes registry entries a reader found stale, unless they were refreshed since.
-- KEYS: [1] registry hash
-- ARGV: field, value as read, field, value as read, ...
-- Returns: the number of entries deleted
local n = 0
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    n = n + redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
return n
