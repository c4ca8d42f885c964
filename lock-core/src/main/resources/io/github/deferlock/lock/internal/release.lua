-- Releases a lock: compare-and-delete; if the key was marked (a waiter of another process queued behind the
-- holder, see acquire.lua), the key is instead granted to the waiter queue's live head (a direct hand-off:
-- the head holds the key when it hears the notice, without another request) and only the head is told, on
-- its own channel (waiters.lua).
--
-- The grant: the head is popped, a block of ARGV[6] fencing tokens is reserved from the counter exactly as
-- acquire.lua reserves one (fence.lua's reserveFence: raised to the server's TIME in microseconds first), and the key is
-- set to the head's token, its waiter id followed by the block's last token in 16 decimal digits (so the head
-- knows it as its own: its next request finds it, acquire.lua), with a '+' when others are still queued. The
-- key lives only as long as the head's queue entry had left (at most one entry life): a head that died
-- delays the queue no longer than before; a live head extends the key to its lease at once. The notice is
-- '=' followed by the block's last token. When the counter cannot be raised (not an integer) the key is
-- reserved for the head instead ('~' .. id, two entry lives; notice '~'), as before direct grants.
--
-- KEYS[1]  lock key              p{e}
-- KEYS[2]  release record        p{e}:last-release (same hash tag): the token of the last release, kept for
--          ARGV[4] ms, so that a resent release (after a lost reply) recognises its own earlier success
-- KEYS[3]  waiter queue          p{e}:waiters
-- KEYS[4]  waiter deadlines      p{e}:waiter-deadlines
-- KEYS[5]  fencing counter       p{e}:fence
-- ARGV[1]  the holder's token
-- ARGV[2]  waiter channel prefix p{e}:released: (same hash tag, so SPUBLISH stays in the key's shard)
-- ARGV[3]  '1' to publish with SPUBLISH (Redis 7.0+ cluster: sharded pub/sub), else PUBLISH
-- ARGV[4]  how long the release record lives, in ms
-- ARGV[5]  life of a waiter entry in ms (a reservation lives twice that)
-- ARGV[6]  fencing tokens to reserve for the head (the block of a watchdog hold)
--
-- Returns 1 when the key held ARGV[1] and was deleted (no waiter of another process was queued alive);
--         2 when the key held ARGV[1] and is now granted (or reserved) to the queue's live head, which was told;
--         3 when the key no longer holds ARGV[1] because this token's release already ran (a resend);
--         0 when the key is gone or holds another token and no release of ARGV[1] is recorded (nothing
--           changed: the hold was lost).
redis.replicate_commands() -- TIME before writes: replicate effects (the default since Redis 5; kept for 6.2)
--@include waiters.lua
--@include fence.lua

-- Grants the free key to the queue's live head, or deletes it when no waiter is live; returns the head or false.
local function grantHead(key, waiters, deadlines, now, life)
  local head, deadline = liveHead(waiters, deadlines, now)
  if not head then
    redis.call('DEL', key)
    return false
  end
  local fence = reserveFence(KEYS[5], tonumber(ARGV[6]))
  if type(fence) == 'table' and fence.err then -- a counter that is not an integer: reserve, as before
    redis.call('SET', key, '~' .. head, 'PX', 2 * life)
    notice(ARGV[3], ARGV[2] .. head, '~')
    return head
  end
  redis.call('LPOP', waiters)
  redis.call('ZREM', deadlines, head)
  local value = head .. string.format('%016d', fence)
  if redis.call('EXISTS', waiters) == 1 then
    value = value .. '+' -- others still queued: the head's release looks at the queue
  end
  local ttl = life
  if deadline and deadline - now < life then
    ttl = math.max(deadline - now, 1)
  end
  redis.call('SET', key, value, 'PX', ttl)
  notice(ARGV[3], ARGV[2] .. head, '=' .. string.format('%d', fence))
  return head
end

local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, #ARGV[1]) == ARGV[1] then
  if #held == #ARGV[1] then
    redis.call('DEL', KEYS[1])
    redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[4])
    return 1
  end
  local now = nowMillis()
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[4])
  if grantHead(KEYS[1], KEYS[3], KEYS[4], now, tonumber(ARGV[5])) then
    return 2
  end
  return 1
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  return 3
end
return 0
