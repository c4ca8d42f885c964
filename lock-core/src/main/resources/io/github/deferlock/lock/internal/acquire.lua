-- Acquires a lock: SET NX PX with the caller's fresh token and, on success, reserves a block of fencing
-- tokens from the counter. The first token of the block is this acquisition's; the process may hand the
-- hold to its own next local waiter with the next token of the block, without a round trip. Every later
-- acquisition, by anyone, moves past the whole block, so tokens stay strictly increasing per key.
--
-- Fencing tokens survive data loss: a counter that is missing or below the server's TIME in microseconds
-- (now) is raised, the block then being [now, now + n - 1] (fence.lua). So after a restart without
-- persistence, or a failover that lost the last counter write, tokens continue above every earlier one, as long
-- as the server clock does not go backwards and a key averages fewer than one token per microsecond
-- (docs/lock-keys.md).
--
-- Waiting processes queue in FIFO order (waiters.lua): a caller that will wait and finds the key taken is
-- queued (or refreshes its place), and a key that is free or reserved ('~' .. id) goes to the queue's live
-- head only. A caller that is not queued yet takes a free key at once: a free key has no live waiter
-- (a release with one reserves the key), except for the moments after a holder's lease ran out, before the
-- queue's head asks again (at most 200 ms).
--
-- Idempotent under resend: a client that resends this call after a lost reply (Jedis's cluster executor
-- does) finds the key holding its own token and gets the same grant back (nothing changes).
--
-- KEYS[1]  lock key              p{e}
-- KEYS[2]  fencing counter key   p{e}:fence (same hash tag, same slot)
-- KEYS[3]  waiter queue          p{e}:waiters (list of waiter ids, arrival order)
-- KEYS[4]  waiter deadlines      p{e}:waiter-deadlines (zset: waiter id -> deadline, server ms)
-- ARGV[1]  token: 32 hex digits, a fresh random 128-bit value per acquisition
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  fencing tokens to reserve (>= 1)
-- ARGV[4]  the caller's waiter id when it will wait if the key is taken, '' when it will not
-- ARGV[5]  with a waiter id: 'new' (not queued yet: a free key is taken, a taken one queues the caller),
--          'wait' (queued: a free or reserved key only if the caller is the live head, else its deadline is
--          refreshed) or 'last' (like 'wait', but the caller leaves the queue if not granted)
-- ARGV[6]  life of a waiter entry in ms (its deadline is now + this)
-- ARGV[7]  waiter channel prefix p{e}:released: (a waiter's channel is this followed by its id)
-- ARGV[8]  '1' to publish with SPUBLISH (Redis 7.0+ cluster: sharded pub/sub), else PUBLISH
-- ARGV[9]  optional: '1' when the caller yields to parked work (a new message of a ConflictAwareHandler with
--          ordered DEFER): while KEYS[5] (p{e}:parked, park.lua) is not empty the key is refused to it, free
--          or not, so it parks behind instead of overtaking. Absent for every other caller.
-- KEYS[5]  parked FIFO           p{e}:parked, only with ARGV[9] = '1'
--
-- A holder's value gets a '+' appended (once) when a waiter queues behind it, or when it was granted with
-- waiters still queued: its release then looks at the queue (release.lua).
--
-- Returns {1, the counter's value: the block's last token} when acquired (the block is
--         [value - ARGV[3] + 1, value]), also when the key already holds ARGV[1] (a resent call);
--         {0, remaining TTL of the holder's key (or of the head's reservation) in ms, or -1 when it has
--         none} when taken; {0, -3} when refused because work is parked (ARGV[9]).
-- Errors: WRONGTYPE when the lock key holds a non-string value; WRONGTYPE or INCRBY's error when the counter is
--         not a string or not an integer (the counter is left as it was and the lock key is removed again, so
--         nothing is left behind).
redis.replicate_commands() -- TIME before writes: replicate effects (the default since Redis 5; kept for 6.2)
--@include waiters.lua
--@include fence.lua

local key, waiters, deadlines = KEYS[1], KEYS[3], KEYS[4]
local token, waiter, mode = ARGV[1], ARGV[4], ARGV[5]

local function reserve()
  return reserveFence(KEYS[2], tonumber(ARGV[3]))
end

local function granted()
  local fence = reserve()
  if type(fence) == 'table' and fence.err then
    redis.call('DEL', key)
    return fence
  end
  return {1, fence}
end

local queued = waiter ~= '' and mode ~= 'new'
local yields = ARGV[9] == '1' and redis.call('LLEN', KEYS[5]) > 0
if not queued and not yields and redis.call('SET', key, token, 'NX', 'PX', ARGV[2]) then
  return granted()
end
local kind = redis.call('TYPE', key).ok
if kind ~= 'string' and kind ~= 'none' then
  return redis.error_reply('WRONGTYPE the lock key holds a value that is not a lock')
end
local held = redis.call('GET', key)
if held and string.sub(held, 1, #token) == token then
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
if yields then -- after the resend check: a resent grant stays a grant
  return {0, -3}
end

local now = nowMillis()
local life = tonumber(ARGV[6])

local function stayOrLeave()
  if waiter ~= '' then
    if mode == 'last' then
      leave(waiters, deadlines, waiter)
    else
      join(waiters, deadlines, waiter, now, life)
    end
  end
end

if held and string.sub(held, 1, 1) ~= '~' then -- another holder
  stayOrLeave()
  if waiter ~= '' and mode ~= 'last' and string.sub(held, -1) ~= '+' then
    redis.call('APPEND', key, '+')
  end
  return {0, redis.call('PTTL', key)}
end

-- free, or reserved for the queue's head
local head = liveHead(waiters, deadlines, now)
if not head or head == waiter then
  if head then
    redis.call('LPOP', waiters)
    redis.call('ZREM', deadlines, head)
  end
  local value = token
  if redis.call('EXISTS', waiters) == 1 then
    value = token .. '+' -- others still queued: the release looks at the queue
  end
  redis.call('SET', key, value, 'PX', ARGV[2])
  return granted()
end
if held ~= '~' .. head then -- the reservation was missing or for a waiter since pruned: move it to the head
  redis.call('SET', key, '~' .. head, 'PX', 2 * life)
  notice(ARGV[8], ARGV[7] .. head, '~')
end
stayOrLeave()
return {0, redis.call('PTTL', key)}
