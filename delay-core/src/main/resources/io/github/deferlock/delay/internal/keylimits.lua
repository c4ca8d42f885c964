-- keylimits: concurrency per key (docs/delay-queue.md, "Concurrency per key"). A job may carry a concurrency key:
-- 0x1D, the key's length in UTF-8 bytes, ':' and the key, in its envelope's payload field after the priority
-- prefix (0x1F and a digit, levels.lua) and before the headers (0x1E). A job without it pays no command here.
-- Keys, all derived from the queue's prefix (deferlock:dq:{q}:, in the queue's hash tag, docs/queue-keys.md):
--   keylimits        hash: field '' the limit of every key, field <key> the limit of that key (wins); absent: none
--   running:<key>    zset: member <seq><id> of each claimed job of the key, score its visibility deadline (ms); a
--                    member whose deadline passed holds no slot (not counted), so a crash frees its slots; the
--                    member goes when its job leaves flight (every script that ends a claim calls keysRelease,
--                    a visibility timeout when the claim returns the job), so the zset holds only in-flight jobs
--   held:<key>       zset: the due jobs held back because the key was at its limit when a claim took them, score
--                    (9 - priority) * 1e13 + due ms (so the highest priority, then the earliest due, comes back first)
--   held             hash: field <key> how many jobs of the key are held; the stats hash's field 'held': how many in
--                    all (stats.lua reads it with the counters)
-- A held job keeps its envelope (state w): it waits in held:<key> instead of its level's due zset. Each time jobs
-- of the key leave running:<key> (ack, nack, deadLetter, reschedule, give back, cancel, a visibility timeout) the
-- key's next held jobs go back to due, as many as it has free slots (at most 100 per key and call).
-- Commands are per key and call, not per job: a claim reads the limits of a round's keys in one HMGET, counts
-- each limited key's slots with one ZCOUNT and writes each key's claimed and held jobs with one ZADD each; jobs
-- leaving flight cost one ZREM per key and one HMGET of the held counts, and only keys with held jobs more.
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

-- the most members one ZADD or ZREM here takes: Lua's unpack stops short of 8,000 values
local CHUNK = 1000

-- ZADD `key` `score` m for every m of `members` (one ZADD per CHUNK members)
local function zaddAll(key, score, members)
  for from = 1, #members, CHUNK do
    local args = {}
    for k = from, math.min(from + CHUNK - 1, #members) do
      args[#args + 1] = score
      args[#args + 1] = members[k]
    end
    redis.call('ZADD', key, unpack(args))
  end
end

-- the limits of the distinct `keys`, {key -> limit} (a key with no limit, own or queue-wide, is absent): one
-- HMGET of the keys' fields and '', the queue's limit (a key's own field wins)
local function keyLimits(qp, keys)
  local fields = {}
  for k = 1, #keys do fields[k] = keys[k] end
  fields[#fields + 1] = ''
  local l = redis.call('HMGET', qp .. 'keylimits', unpack(fields))
  local all, out = l[#l], {}
  for k = 1, #keys do
    local v = l[k] or all
    if v then out[keys[k]] = tonumber(v) end
  end
  return out
end

-- how many slots of `key` are taken: the members of running:<key> whose deadline has not passed (a member whose
-- deadline passed holds no slot; the claim that returns its job after its visibility timeout removes it)
local function keyTaken(qp, key, now)
  return redis.call('ZCOUNT', qp .. 'running:' .. key, '(' .. now, '+inf')
end

-- counts `n` held jobs of `key` more (negative: fewer) in the held hash; the total (the stats hash's 'held') is
-- the caller's
local function heldField(qp, key, n)
  if redis.call('HINCRBY', qp .. 'held', key, n) <= 0 then redis.call('HDEL', qp .. 'held', key) end
end

-- counts `n` held jobs of `key` more (negative: fewer), in the held hash and in the total
local function heldCount(qp, key, n)
  heldField(qp, key, n)
  redis.call('HINCRBY', qp .. 'stats', 'held', n)
end

-- claim: the admission of one claim call (keyAdmission), fed round by round. keyRound(adm, keys) first reads
-- what it does not know yet of the round's keys: their limits (one HMGET for all) and, per limited key, its slots
-- taken (one ZCOUNT); a key with no limit costs nothing more. keyAdmit(adm, key, member, level, score) then judges
-- each due job of a key in claim order; keyAdmitted(adm) writes what was judged, per key one ZADD of its claimed
-- jobs to running:<key> (score the claim's visibility deadline) and one ZADD of its held jobs to held:<key>
-- (HELD_SPAN score) with one HINCRBY of its held count, and one HINCRBY of the total held.
local function keyAdmission(qp, now, deadline)
  return {qp = qp, now = now, deadline = deadline, keys = {}, known = {}, limit = {}, taken = {}, run = {},
    held = {}}
end

-- reads the limits and slots of the keys in the list `keys` (repeats allowed) that `adm` does not know yet
local function keyRound(adm, keys)
  local new, seen = {}, {}
  for _, key in ipairs(keys) do
    if not adm.known[key] and not seen[key] then
      seen[key] = true
      new[#new + 1] = key
    end
  end
  if #new == 0 then return end
  local limits = keyLimits(adm.qp, new)
  for _, key in ipairs(new) do
    adm.known[key] = true
    adm.keys[#adm.keys + 1] = key
    adm.run[key], adm.held[key] = {}, {}
    local limit = limits[key]
    if limit then
      adm.limit[key] = limit
      adm.taken[key] = keyTaken(adm.qp, key, adm.now)
    end
  end
end

-- whether the due job `member` (of `level`, due at `score`) of `key` (known to `adm` by keyRound) may be claimed
-- now: true when its key has a free slot (the job takes it), false when the job is held
local function keyAdmit(adm, key, member, level, score)
  local limit = adm.limit[key]
  if limit then
    if adm.taken[key] >= limit then
      local held = adm.held[key]
      held[#held + 1] = (9 - level) * HELD_SPAN + tonumber(score)
      held[#held + 1] = member
      return false
    end
    adm.taken[key] = adm.taken[key] + 1
  end
  local run = adm.run[key]
  run[#run + 1] = member
  return true
end

-- writes what `adm` judged: the claimed jobs to running:<key>, the held ones to held:<key> and their counts
local function keyAdmitted(adm)
  local qp, total = adm.qp, 0
  for _, key in ipairs(adm.keys) do
    local run, held = adm.run[key], adm.held[key]
    if #run > 0 then zaddAll(qp .. 'running:' .. key, adm.deadline, run) end
    if #held > 0 then
      for from = 1, #held, 2 * CHUNK do
        redis.call('ZADD', qp .. 'held:' .. key, unpack(held, from, math.min(from + 2 * CHUNK - 1, #held)))
      end
      heldField(qp, key, #held / 2)
      total = total + #held / 2
    end
  end
  if total > 0 then redis.call('HINCRBY', qp .. 'stats', 'held', total) end
end

-- the due ms and the level of a held score
local function heldDue(score)
  local rank = math.floor(tonumber(score) / HELD_SPAN)
  return tonumber(score) - rank * HELD_SPAN, 9 - rank
end

-- moves the next held jobs of `key` (limit `limit`, nil: none) back to their due zsets with their due times, as
-- many as the key has free slots (at most RELEASE_MAX); returns the earliest due ms moved back (nil when none)
-- and how many moved. The caller counts them out of the total held
local function keyLetBack(qp, key, limit, now)
  local free = RELEASE_MAX
  if limit then
    free = math.min(free, limit - keyTaken(qp, key, now))
    if free <= 0 then return nil, 0 end
  end
  local held = qp .. 'held:' .. key
  local got = redis.call('ZRANGE', held, 0, free - 1, 'WITHSCORES')
  if #got == 0 then return nil, 0 end
  local members, earliest = {}, nil
  for k = 1, #got, 2 do members[#members + 1] = got[k] end
  redis.call('ZREM', held, unpack(members))
  for k = 1, #got, 2 do
    local due, level = heldDue(got[k + 1])
    addWaiting(qp .. 'due', level, due, got[k])
    if earliest == nil or due < earliest then earliest = due end
  end
  heldField(qp, key, -#members)
  return earliest, #members
end

-- the jobs of a script call that leave flight, grouped by key: keyLeaving() makes the group, keyLeft(left, key,
-- member) adds the job `member` of `key` (member nil: none, only the key's held jobs are looked at), and
-- keysRelease(qp, left, now) frees their slots, one ZREM of running:<key> per key, then, one HMGET of the held
-- counts of all the keys telling which have held jobs, moves those keys' next held jobs back to due as many as
-- each has free slots (keyLetBack; their limits in one HMGET). Returns the earliest due ms moved back (for a wake
-- notice), or nil when none moved
local function keyLeaving()
  return {keys = {}, members = {}}
end

local function keyLeft(left, key, member)
  local members = left.members[key]
  if not members then
    members = {}
    left.members[key] = members
    left.keys[#left.keys + 1] = key
  end
  if member then members[#members + 1] = member end
end

local function keysRelease(qp, left, now)
  local keys = left.keys
  if #keys == 0 then return nil end
  for _, key in ipairs(keys) do
    local members = left.members[key]
    for from = 1, #members, CHUNK do
      redis.call('ZREM', qp .. 'running:' .. key, unpack(members, from, math.min(from + CHUNK - 1, #members)))
    end
  end
  local counts = redis.call('HMGET', qp .. 'held', unpack(keys))
  local heldKeys = {}
  for k = 1, #keys do
    if counts[k] and tonumber(counts[k]) > 0 then heldKeys[#heldKeys + 1] = keys[k] end
  end
  if #heldKeys == 0 then return nil end
  local limits = keyLimits(qp, heldKeys)
  local earliest, moved = nil, 0
  for _, key in ipairs(heldKeys) do
    local due, n = keyLetBack(qp, key, limits[key], now)
    if due and (earliest == nil or due < earliest) then earliest = due end
    moved = moved + n
  end
  if moved > 0 then redis.call('HINCRBY', qp .. 'stats', 'held', -moved) end
  return earliest
end

-- frees the slot of job `member` (nil: none) of `key`, then moves the key's next held jobs back to due as
-- keysRelease does; returns the earliest due ms moved back, or nil when none moved
local function keyRelease(qp, key, member, now)
  local left = keyLeaving()
  keyLeft(left, key, member)
  return keysRelease(qp, left, now)
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
