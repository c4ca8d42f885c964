-- Acquires a lock: SET NX PX with the caller's fresh token and, on success, INCR of the fencing counter.
--
-- KEYS[1]  lock key              p{e}
-- KEYS[2]  fencing counter key   p{e}:fence (same hash tag, same slot)
-- ARGV[1]  token: 32 hex digits, a fresh random 128-bit value per acquisition
-- ARGV[2]  lease in milliseconds
--
-- Returns {1, fencing token} when acquired (the token is the counter's new value, >= 1);
--         {0, remaining TTL of the holder's key in ms, or -1 when it has none} when taken.
-- Errors: WRONGTYPE when the lock key holds a non-string value; the INCR error when the counter is not an
--         integer (the lock key is removed again, so nothing is left behind).
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local fence = redis.pcall('INCR', KEYS[2])
  if type(fence) == 'table' and fence.err then
    redis.call('DEL', KEYS[1])
    return fence
  end
  return {1, fence}
end
if redis.call('TYPE', KEYS[1]).ok ~= 'string' then
  return redis.error_reply('WRONGTYPE the lock key holds a value that is not a lock')
end
return {0, redis.call('PTTL', KEYS[1])}
