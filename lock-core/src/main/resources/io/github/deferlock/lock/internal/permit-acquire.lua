-- Acquires a permit (permits.lua): grants the caller's fresh token a slot (the lowest no live holder has) and
-- a fencing token, when a permit is free and FIFO order allows: a caller not queued yet takes one only when
-- fewer live waiters are queued than permits are free; a queued caller only when fewer live waiters are queued
-- before it than permits are free. Expired holders are pruned first (server time).
--
-- Fencing tokens come from the counter p{e}:fence as for the lock (acquire.lua): a counter that is missing or
-- below the server's TIME in microseconds is raised to it (that value is the token), else it is incremented,
-- so tokens keep rising across data loss; one counter per name, so tokens rise per slot too.
--
-- Idempotent under resend: a resent call finds its token live among the holders and gets the same grant back.
--
-- KEYS[1]  holders               p{e} (zset: token -> lease deadline, server ms)
-- KEYS[2]  holder records        p{e}:permits (hash: 'limit', 't:' .. token -> '<slot>:<fence>')
-- KEYS[3]  fencing counter       p{e}:fence
-- KEYS[4]  waiter queue          p{e}:waiters
-- KEYS[5]  waiter deadlines      p{e}:waiter-deadlines
-- ARGV[1]  token: 32 hex digits, fresh per acquisition
-- ARGV[2]  lease in ms
-- ARGV[3]  limit
-- ARGV[4]  the call's waiter id when it will wait if no permit is free, '' when it will not
-- ARGV[5]  with a waiter id: 'new' (not queued yet), 'wait' (queued) or 'last' (queued, leaves if not granted)
-- ARGV[6]  life of a waiter entry in ms
-- ARGV[7]  waiter channel prefix p{e}:released:
-- ARGV[8]  '1' to publish with SPUBLISH (Redis 7.0+ cluster), else PUBLISH
--
-- Returns {1, slot, fencing token} when granted (also for a resent call); {0, ms until the first live
--         holder's lease ends (-1 when none)} when not.
-- Errors: 'WRONGTYPE ...' when the key is a lock or another type; 'LIMIT <n>' when live holders were granted
--         under limit n, not ARGV[3] (nothing granted).
redis.replicate_commands() -- TIME before writes: replicate effects (the default since Redis 5; kept for 6.2)
--@include permits.lua
--@include fence.lua

local holders, records, fenceKey, waiters, deadlines = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local token, lease, limit, waiter, mode = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]

-- one ZSCORE both looks for a resend and checks the key's type (a lock's string: WRONGTYPE, then named)
local score = redis.pcall('ZSCORE', holders, token)
if type(score) == 'table' and score.err then
  return checkType(holders) or score
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

if score and tonumber(score) > now then -- a resend: the same grant
  local rec = redis.call('HGET', records, 't:' .. token)
  if rec then
    local slot, fence = string.match(rec, '^(%d+):(%d+)$')
    return {1, tonumber(slot), tonumber(fence)}
  end
end

prune(holders, records, now)
local live = liveHolders(holders, now)
local stored = tonumber(redis.call('HGET', records, 'limit') or '')
if live > 0 and stored and stored ~= limit then
  return redis.error_reply('LIMIT ' .. stored)
end

local free = limit - live
local granted = false
if free > 0 then
  if waiter ~= '' and mode ~= 'new' then
    local pos = position(waiters, deadlines, waiter, now, free + 32, free)
    granted = pos ~= false and pos < free
  else
    local _, ahead = position(waiters, deadlines, '', now, free + 32, free)
    granted = ahead < free
  end
end

if granted then
  if waiter ~= '' then
    leave(waiters, deadlines, waiter)
  end
  local tokens = redis.call('ZRANGEBYSCORE', holders, '(' .. now, '+inf')
  local used = {}
  if #tokens > 0 then
    local fields = {}
    for i, t in ipairs(tokens) do
      fields[i] = 't:' .. t
    end
    for _, rec in ipairs(redis.call('HMGET', records, unpack(fields))) do
      if rec then
        used[tonumber(string.match(rec, '^(%d+)'))] = true
      end
    end
  end
  local slot = 0
  while used[slot] do
    slot = slot + 1
  end
  -- the token: the counter + 1, or the server's TIME in microseconds when the counter is missing or below it
  -- (fence.lua; the TIME read above)
  local fence = reserveFence(fenceKey, 1, time)
  if type(fence) == 'table' and fence.err then
    return fence
  end
  redis.call('ZADD', holders, now + lease, token)
  redis.call('HSET', records, 'limit', limit, 't:' .. token, string.format('%d:%d', slot, fence))
  keepAlive(holders, records, lease)
  return {1, slot, fence}
end

if waiter ~= '' then
  if mode == 'last' then
    leave(waiters, deadlines, waiter)
    noticeEligible(holders, waiters, deadlines, limit, now, ARGV[7], ARGV[8])
  else
    join(waiters, deadlines, waiter, now, tonumber(ARGV[6]))
  end
end
local first = redis.call('ZRANGEBYSCORE', holders, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if first[2] then
  return {0, tonumber(first[2]) - now}
end
return {0, -1}
