-- keylimits: concurrency per key (docs/delay-queue.md, "Concurrency per key"). A job may carry a concurrency key:
-- 0x1D, the key's length in UTF-8 bytes, ':' and the key, in its envelope's payload field after the priority
-- prefix (0x1F and a digit, levels.lua) and before the headers (0x1E). A job without it pays no command here.
-- Keys, all derived from the queue's prefix (deferlock:dq:{q}:, in the queue's hash tag, docs/queue-keys.md):
--   keylimits        hash: field '' the limit of every key, field <key> the limit of that key (wins); absent: none
--   running:<key>    zset: member <seq><id> of each claimed job of the key, score its visibility deadline (ms); a
--                    member whose deadline passed holds no slot (the claim drops it), so a crash frees its slots
--   held:<key>       zset: the due jobs held back because the key was at its limit when a claim took them, score
--                    (9 - priority) * 1e13 + due ms (so the highest priority, then the earliest due, comes back first)
--   held             hash: field <key> how many jobs of the key are held; the stats hash's field 'held': how many in
--                    all (stats.lua reads it with the counters)
-- A held job keeps its envelope (state w): it waits in held:<key> instead of its level's due zset. Each time a job
-- of the key leaves running:<key> (ack, nack, deadLetter, reschedule, give back, cancel, a visibility timeout) the
-- key's next held jobs go back to due, as many as it has free slots (at most 100 per call).
-- Shared by the queue scripts (--@include keylimits.lua, after envelope.lua and levels.lua).

-- held score = (9 - priority) * HELD_SPAN + due ms: due ms < 1e13 (year 2286), exact below 2^53
local HELD_SPAN = 10000000000000
-- the most held jobs one release moves back to due
local RELEASE_MAX = 100

-- the queue's key prefix (deferlock:dq:{q}:) from its jobs hash key (deferlock:dq:{q}:jobs)
local function queuePrefix(jobsKey)
  return string.sub(jobsKey, 1, -5)
end

-- the concurrency key of the payload field that starts at index `at` (a priority prefix is skipped), and the
-- index where the rest of the field (headers, payload) starts; nil and that index when the job has no key
local function keyAt(s, at)
  if string.byte(s, at) == 31 then at = at + 2 end
  if string.byte(s, at) ~= 29 then return nil, at end
  local colon = string.find(s, ':', at + 1, true)
  local n = tonumber(string.sub(s, at + 1, colon - 1))
  return string.sub(s, colon + 1, colon + n), colon + n + 1
end

-- the concurrency key of envelope `env`, or nil
local function envKey(env)
  local _, _, i3 = envSplit(env)
  return (keyAt(env, i3 + 1))
end

-- the limit of `key`: its own, else the queue's, else nil (no limit)
local function keyLimit(qp, key)
  local l = redis.call('HMGET', qp .. 'keylimits', key, '')
  local v = l[1] or l[2]
  if v then return tonumber(v) end
  return nil
end

-- counts `n` held jobs of `key` more (negative: fewer)
local function heldCount(qp, key, n)
  if redis.call('HINCRBY', qp .. 'held', key, n) <= 0 then redis.call('HDEL', qp .. 'held', key) end
  redis.call('HINCRBY', qp .. 'stats', 'held', n)
end

-- claim: whether the due job `member` (of `level`, due at `score`) of `key` may be claimed now. When its key has
-- a free slot the job takes it (running:<key> until `deadline`) and true is returned; else the job is held
-- (held:<key>) and false is returned. `cache` keeps each key's limit and slots taken within one call.
local function keyAdmit(qp, cache, key, member, level, score, now, deadline)
  local st = cache[key]
  if not st then
    local limit = keyLimit(qp, key)
    local n = 0
    if limit then
      local run = qp .. 'running:' .. key
      redis.call('ZREMRANGEBYSCORE', run, '-inf', now)
      n = redis.call('ZCARD', run)
    end
    st = {limit, n}
    cache[key] = st
  end
  if st[1] and st[2] >= st[1] then
    redis.call('ZADD', qp .. 'held:' .. key, (9 - level) * HELD_SPAN + tonumber(score), member)
    heldCount(qp, key, 1)
    return false
  end
  st[2] = st[2] + 1
  redis.call('ZADD', qp .. 'running:' .. key, deadline, member)
  return true
end

-- the due ms and the level of a held score
local function heldDue(score)
  local rank = math.floor(tonumber(score) / HELD_SPAN)
  return tonumber(score) - rank * HELD_SPAN, 9 - rank
end

-- frees the slot of job `member` (nil: none) of `key`, then moves the key's next held jobs back to their due
-- zsets with their due times, as many as the key has free slots (at most RELEASE_MAX); returns the earliest due
-- ms moved back (for a wake notice), or nil when none moved
local function keyRelease(qp, key, member, now)
  local run = qp .. 'running:' .. key
  if member then redis.call('ZREM', run, member) end
  local held = qp .. 'held:' .. key
  if redis.call('EXISTS', held) == 0 then return nil end
  local free = RELEASE_MAX
  local limit = keyLimit(qp, key)
  if limit then
    free = math.min(free, limit - redis.call('ZCOUNT', run, '(' .. now, '+inf'))
    if free <= 0 then return nil end
  end
  local got = redis.call('ZRANGE', held, 0, free - 1, 'WITHSCORES')
  local members, earliest = {}, nil
  for k = 1, #got, 2 do members[#members + 1] = got[k] end
  redis.call('ZREM', held, unpack(members))
  for k = 1, #got, 2 do
    local due, level = heldDue(got[k + 1])
    addWaiting(qp .. 'due', level, due, got[k])
    if earliest == nil or due < earliest then earliest = due end
  end
  heldCount(qp, key, -#members)
  return earliest
end

-- takes the waiting job `member` of `key` out of the held jobs, back to its level's due zset at its due time;
-- returns true when it was held (a replace or cancel then finds it where a waiting job is)
local function keyUnhold(qp, key, member)
  local held = qp .. 'held:' .. key
  local score = redis.call('ZSCORE', held, member)
  if not score then return false end
  redis.call('ZREM', held, member)
  heldCount(qp, key, -1)
  local due, level = heldDue(score)
  addWaiting(qp .. 'due', level, due, member)
  return true
end

-- the due ms of the held job `member` of `key`, or nil when it is not held (read only)
local function keyHeldDue(qp, key, member)
  local score = redis.call('ZSCORE', qp .. 'held:' .. key, member)
  if not score then return nil end
  return (heldDue(score))
end
