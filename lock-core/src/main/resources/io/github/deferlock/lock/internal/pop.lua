-- Removes the head item of a key's parked FIFO once it ran (or was moved to the dead letters), so the next one
-- is the head. Only the head is removed: a resend, or a second runner, finds another head and changes nothing.
--
-- KEYS[1]  parked FIFO           p{e}:parked
-- KEYS[2]  parked items          p{e}:parked-items
-- KEYS[3]  failed attempts       p{e}:parked-attempts
-- ARGV[1]  item id
--
-- Returns 1 when ARGV[1] was the head and is removed; 0 when it was not the head (nothing changed).
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then
  return 0
end
redis.call('LPOP', KEYS[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
