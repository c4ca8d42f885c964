-- fence: the fencing counter p{e}:fence (docs/lock-keys.md, "Fencing tokens across data loss"). Shared by
-- acquire.lua, drain-next.lua and permit-acquire.lua (--@include fence.lua); the including script calls
-- redis.replicate_commands() first (TIME before writes).
--
-- The counter never starts below the server clock: a counter that is missing or holds an integer below the
-- server's TIME in microseconds (now) is raised, so tokens keep rising across data loss (a restart without
-- persistence, eviction, a failover that lost the last write) under the documented assumptions.

-- Reserves a block of n fencing tokens from the counter key and returns the block's last token (the counter's
-- new value; the block is [last - n + 1, last]), or an error table that the caller returns or ignores:
--   a counter that is missing or an integer below now:  the block is [now, now + n - 1]
--   a counter at or above now (a clock behind, or a key handing out tokens faster than the clock moves):
--                                                        the block is [old + 1, old + n]
--   a counter that is not an integer:                    left as it was; INCRBY's error
--   a key that is not a string:                          left as it was; WRONGTYPE
-- One write in the common case: SET <now + n - 1> GET returns the old value, and the rare cases put the
-- counter right with one more write (or two: restore, then INCRBY for its exact checks). KEEPTTL: a TTL
-- someone put on the counter (deferlock sets none) stays as it was, as INCRBY would keep it.
-- time: optional, a TIME reply the caller already read (saves one command).
local function reserveFence(counter, n, time)
  time = time or redis.call('TIME')
  local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local raised = now + n - 1
  local old = redis.pcall('SET', counter, string.format('%d', raised), 'KEEPTTL', 'GET')
  if type(old) == 'table' then
    return old -- WRONGTYPE (nothing was written)
  end
  if old == false then
    return raised
  end
  local value = string.match(old, '^%d+$') and tonumber(old)
  if value and value < now then
    return raised
  end
  if value and string.match(old, '^[1-9]') and value + n < 2 ^ 53 then -- exact in a Lua number
    redis.call('SET', counter, string.format('%d', value + n), 'KEEPTTL')
    return value + n
  end
  redis.call('SET', counter, old, 'KEEPTTL') -- not a plain integer, or beyond 2^53: INCRBY decides
  return redis.pcall('INCRBY', counter, n)
end
