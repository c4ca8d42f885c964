-- Acquires a lock: SET NX PX with the caller's fresh token and, on success, INCRBY of the fencing counter by
-- a block of fencing tokens. The first token of the block is this acquisition's; the process may hand the
-- hold to its own next local waiter with the next token of the block, without a round trip. Every later
-- acquisition, by anyone, INCRBYs past the whole block, so tokens stay strictly increasing per key.
--
-- KEYS[1]  lock key              p{e}
-- KEYS[2]  fencing counter key   p{e}:fence (same hash tag, same slot)
-- ARGV[1]  token: 32 hex digits, a fresh random 128-bit value per acquisition
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  fencing tokens to reserve (>= 1)
-- ARGV[4]  '1' when the caller will wait and retry if the lock is taken: the holder's value gets a '+'
--          appended (once), so the release that ends the hold can tell the holder's process that another
--          process waits (the lock key's value is then the token followed by '+'; TTL unchanged)
--
-- Returns {1, the counter's new value: the block's last token} when acquired (the block is
--         [value - ARGV[3] + 1, value], its first token >= 1);
--         {0, remaining TTL of the holder's key in ms, or -1 when it has none} when taken.
-- Errors: WRONGTYPE when the lock key holds a non-string value; the INCRBY error when the counter is not an
--         integer (the lock key is removed again, so nothing is left behind).
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local fence = redis.pcall('INCRBY', KEYS[2], ARGV[3])
  if type(fence) == 'table' and fence.err then
    redis.call('DEL', KEYS[1])
    return fence
  end
  return {1, fence}
end
if redis.call('TYPE', KEYS[1]).ok ~= 'string' then
  return redis.error_reply('WRONGTYPE the lock key holds a value that is not a lock')
end
if ARGV[4] == '1' then
  local held = redis.call('GET', KEYS[1])
  if held and string.sub(held, -1) ~= '+' then
    redis.call('APPEND', KEYS[1], '+')
  end
end
return {0, redis.call('PTTL', KEYS[1])}
