-- Acquires a lock: SET NX PX with the caller's fresh token and, on success, reserves a block of fencing
-- tokens from the counter. The first token of the block is this acquisition's; the process may hand the
-- hold to its own next local waiter with the next token of the block, without a round trip. Every later
-- acquisition, by anyone, moves past the whole block, so tokens stay strictly increasing per key.
--
-- Fencing tokens survive data loss: before the block is reserved, a counter that is missing or below the
-- server's TIME in microseconds is raised to it. So after a restart without persistence, or a failover that
-- lost the last INCRBY, tokens continue above every earlier one, as long as the server clock does not go
-- backwards and a key averages fewer than one token per microsecond (docs/lock-keys.md).
--
-- Idempotent under resend: a client that resends this call after a lost reply (Jedis's cluster executor
-- does) finds the key holding its own token and gets the same grant back (nothing changes).
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
-- Returns {1, the counter's value: the block's last token} when acquired (the block is
--         [value - ARGV[3] + 1, value]), also when the key already holds ARGV[1] (a resent call);
--         {0, remaining TTL of the holder's key in ms, or -1 when it has none} when taken.
-- Errors: WRONGTYPE when the lock key holds a non-string value; the INCRBY error when the counter is not an
--         integer (the lock key is removed again, so nothing is left behind).
redis.replicate_commands() -- TIME before writes: replicate effects (the default since Redis 5; kept for 6.2)

local function reserve()
  local time = redis.call('TIME')
  local now = time[1] .. string.format('%06d', tonumber(time[2]))
  local current = redis.pcall('GET', KEYS[2])
  if current == false
      or (type(current) == 'string' and string.match(current, '^%d+$') and tonumber(current) < tonumber(now)) then
    redis.call('SET', KEYS[2], now)
  end
  return redis.pcall('INCRBY', KEYS[2], ARGV[3])
end

if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local fence = reserve()
  if type(fence) == 'table' and fence.err then
    redis.call('DEL', KEYS[1])
    return fence
  end
  return {1, fence}
end
if redis.call('TYPE', KEYS[1]).ok ~= 'string' then
  return redis.error_reply('WRONGTYPE the lock key holds a value that is not a lock')
end
local held = redis.call('GET', KEYS[1])
if string.sub(held, 1, #ARGV[1]) == ARGV[1] then
  local fence = tonumber(redis.call('GET', KEYS[2]) or '')
  if fence then
    return {1, fence}
  end
  fence = reserve() -- the counter vanished under a held key: reserve a fresh block
  if type(fence) == 'table' and fence.err then
    return fence
  end
  return {1, fence}
end
if ARGV[4] == '1' and string.sub(held, -1) ~= '+' then
  redis.call('APPEND', KEYS[1], '+')
end
return {0, redis.call('PTTL', KEYS[1])}
