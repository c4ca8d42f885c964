-- levels: priorities. A job of priority k (1..9) waits in the zset <due>:<k> instead of <due> (priority 0, every
-- job without a priority); <due>:levels is a zset (member = score = k) of the levels that may hold waiting
-- jobs, written when a job enters a level and pruned by claim.lua when it finds the level empty. The level
-- lives in the envelope's payload field: 0x1F and the digit k in front of the headers and the payload (a field
-- without 0x1F is level 0, as every earlier version wrote it). The level keys are derived from KEYS' due zset,
-- in the queue's hash tag. Shared by the queue scripts (--@include levels.lua, after envelope.lua).

-- the level of the payload field of `s` that starts at index `at`: 0..9
local function levelAt(s, at)
  if string.byte(s, at) == 31 then return string.byte(s, at + 1) - 48 end
  return 0
end

-- the level of envelope `env`
local function envLevel(env)
  local _, _, i3 = envSplit(env)
  return levelAt(env, i3 + 1)
end

-- the zset where jobs of `level` wait
local function levelKey(due, level)
  if level == 0 then return due end
  return due .. ':' .. level
end

-- the levels above 0 that may hold jobs, highest first
local function levelsOf(due)
  return redis.call('ZREVRANGE', due .. ':levels', 0, -1)
end

-- adds `member` waiting at `score` to its level's zset (and the level to the levels zset)
local function addWaiting(due, level, score, member)
  if level == 0 then
    redis.call('ZADD', due, score, member)
  else
    redis.call('ZADD', due .. ':' .. level, score, member)
    redis.call('ZADD', due .. ':levels', level, level)
  end
end

-- the earliest due time of any level, or nil when no job waits; `levels` (optional) as levelsOf(due) returned.
-- With `floor` (optional, a time in ms) it stops at the first head at or before it: a due time that is already
-- past, not necessarily the earliest (enough for a wake-up time, which is then "now")
local function earliestDue(due, levels, floor)
  local head = redis.call('ZRANGE', due, 0, 0, 'WITHSCORES')
  local best = head[2] and tonumber(head[2])
  if floor and best and best <= floor then return best end
  for _, level in ipairs(levels or levelsOf(due)) do
    local h = redis.call('ZRANGE', due .. ':' .. level, 0, 0, 'WITHSCORES')
    if h[2] and (best == nil or tonumber(h[2]) < best) then
      best = tonumber(h[2])
      if floor and best <= floor then return best end
    end
  end
  return best
end
