-- permits: what the permit scripts share (docs/lock-keys.md, "Permits"). Shared by permit-acquire.lua,
-- permit-release.lua, permit-renew.lua, permit-leave.lua and permit-holders.lua (--@include permits.lua).
--
-- The holders of permits p{e} are the zset p{e} itself (token -> lease deadline in server ms), so the name
-- cannot be used as a lock at the same time (the lock's scripts find a zset: WRONGTYPE). The hash
-- p{e}:permits holds 'limit' (the limit the live holders were granted under) and, per holder, 't:' .. token
-- -> '<slot>:<fencing token>'. A holder whose deadline passed is not live: it is not counted, its slot is free
-- and it is pruned (at most 64 per call). Both keys live as long as their longest lease.
--
-- Waiting uses the lock's waiter queue (waiters.lua) with one entry per waiting call: its id is the
-- process's waiter id (16 hex digits), '.', and a sequence number; the process is told on the channel
-- p{e}:released:<process's waiter id>. A queued waiter is eligible when fewer live waiters are queued before
-- it than permits are free.
--@include waiters.lua

-- Prunes up to 64 holders whose deadline passed.
local function prune(holders, records, now)
  local gone = redis.call('ZRANGEBYSCORE', holders, '-inf', now, 'LIMIT', 0, 64)
  for _, t in ipairs(gone) do
    redis.call('ZREM', holders, t)
    redis.call('HDEL', records, 't:' .. t)
  end
end

-- How many holders are live (deadline after now).
local function liveHolders(holders, now)
  return redis.call('ZCOUNT', holders, '(' .. now, '+inf')
end

-- Walks the first span entries of the waiter queue (expired entries met are removed). Returns the position of
-- id among the live entries (false when not met) and how many live entries were counted (stops at most).
local function position(waiters, deadlines, id, now, span, most)
  local ids = redis.call('LRANGE', waiters, 0, span - 1)
  local live = 0
  for _, w in ipairs(ids) do
    local d = redis.call('ZSCORE', deadlines, w)
    if d and tonumber(d) > now then
      if w == id then
        return live, live
      end
      live = live + 1
      if live >= most then
        return false, live
      end
    else
      redis.call('LREM', waiters, 1, w)
      redis.call('ZREM', deadlines, w)
    end
  end
  return false, live
end

-- The live waiter at position n (0-based) among the first n + 32 entries, or false.
local function waiterAt(waiters, deadlines, n, now)
  local ids = redis.call('LRANGE', waiters, 0, n + 31)
  local live = 0
  for _, w in ipairs(ids) do
    local d = redis.call('ZSCORE', deadlines, w)
    if d and tonumber(d) > now then
      if live == n then
        return w
      end
      live = live + 1
    end
  end
  return false
end

-- Tells the waiter that became eligible (position free - 1 among live waiters) on its process's channel.
local function noticeEligible(holders, waiters, deadlines, limit, now, channelPrefix, shardedFlag)
  if redis.call('EXISTS', waiters) == 0 then
    return
  end
  local free = limit - liveHolders(holders, now)
  if free <= 0 then
    return
  end
  local w = waiterAt(waiters, deadlines, free - 1, now)
  if w then
    notice(shardedFlag, channelPrefix .. string.match(w, '^[^.]+'), '+')
  end
end

-- Keeps both keys alive at least ms more.
local function keepAlive(holders, records, ms)
  if redis.call('PTTL', holders) < ms then
    redis.call('PEXPIRE', holders, ms)
  end
  if redis.call('PTTL', records) < ms then
    redis.call('PEXPIRE', records, ms)
  end
end

-- The TYPE of the holders key is a zset or none; a string is a lock: an error reply naming it.
local function checkType(holders)
  local kind = redis.call('TYPE', holders).ok
  if kind == 'string' then
    return redis.error_reply('WRONGTYPE the key is held as a lock')
  end
  if kind ~= 'zset' and kind ~= 'none' then
    return redis.error_reply('WRONGTYPE the key holds a ' .. kind)
  end
  return false
end
