-- waiters: the FIFO queue of the processes waiting for one lock key (docs/lock-keys.md, "Waiter queue").
-- Shared by acquire.lua, release.lua and leave.lua (--@include waiters.lua).
--
-- A waiter is one RedisLocks waiting for the key (its id: 16 hex digits; one contender per key per process).
-- The list p{e}:waiters holds the ids in arrival order, the zset p{e}:waiter-deadlines each id's deadline in
-- server milliseconds. A waiter refreshes its deadline with every request while it waits (at least every
-- 200 ms); an entry whose deadline passed (a crashed or stalled waiter) is pruned when it reaches the head.
-- A key released while a live waiter is queued is not deleted but reserved for the head: its value becomes
-- '~' .. id (never a token, which is hex), and only the head is told, on the channel p{e}:released:<id>.
--@include notice.lua

-- The server's time in milliseconds.
local function nowMillis()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The id of the queue's first live waiter, after pruning expired entries at the head (at most 32 per call;
-- beyond that the head is taken as live until the next call); false when no waiter is queued.
local function liveHead(waiters, deadlines, now)
  for _ = 1, 32 do
    local id = redis.call('LINDEX', waiters, 0)
    if not id then
      return false
    end
    local deadline = redis.call('ZSCORE', deadlines, id)
    if deadline and tonumber(deadline) > now then
      return id
    end
    redis.call('LPOP', waiters)
    redis.call('ZREM', deadlines, id)
  end
  return redis.call('LINDEX', waiters, 0)
end

-- Queues id at the tail, or refreshes its deadline when it is queued; both keys live 3 entry lives after.
local function join(waiters, deadlines, id, now, life)
  if not redis.call('ZSCORE', deadlines, id) then
    redis.call('RPUSH', waiters, id)
  end
  redis.call('ZADD', deadlines, now + life, id)
  redis.call('PEXPIRE', waiters, 3 * life)
  redis.call('PEXPIRE', deadlines, 3 * life)
end

-- Takes id out of the queue.
local function leave(waiters, deadlines, id)
  redis.call('LREM', waiters, 0, id)
  redis.call('ZREM', deadlines, id)
end

-- Reserves the free lock key for the queue's live head (for two entry lives; every request that finds the
-- reservation checks the head again) and tells the head on its channel; deletes the key when no waiter is
-- live. Returns the head's id, or false.
local function passOn(key, waiters, deadlines, now, life, channelPrefix, shardedFlag, message)
  local head = liveHead(waiters, deadlines, now)
  if head then
    redis.call('SET', key, '~' .. head, 'PX', 2 * life)
    notice(shardedFlag, channelPrefix .. head, message)
  else
    redis.call('DEL', key)
  end
  return head
end
