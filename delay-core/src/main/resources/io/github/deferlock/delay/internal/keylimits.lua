-- keylimits: concurrency per key (docs/delay-queue.md, "Concurrency per key"). A job may carry a concurrency key:
-- 0x1D, the key's length in UTF-8 bytes, ':' and the key, in its envelope's payload field after the priority
-- prefix (0x1F and a digit, levels.lua) and before the headers (0x1E). A job without it pays no command here.
-- Keys, all derived from the queue's prefix (deferlock:dq:{q}:, in the queue's hash tag, docs/queue-keys.md):
--   keylimits        hash: field '' the limit of every key, field <key> the limit of that key (wins); absent: none
--   running          hash: field <key> how many jobs of the key are in flight (deleted at 0, never below 0): +1
--                    per job a claim takes, -1 per job that leaves flight (every script that ends a claim, a
--                    visibility timeout when a claim returns the job, before that claim admits any job); a claim
--                    whose deadline passed holds its slot until a claim returns it, so a crash frees its slots
--                    with the next claim after the deadline (or later ones: ARGV[4] caps a claim's returns)
--   held:<key>       zset: the due jobs held back because the key was at its limit when a claim took them, score
--                    (9 - priority) * 1e13 + due ms (so the highest priority, then the earliest due, comes back first)
--   held             hash: field <key> how many jobs of the key are held; the stats hash's field 'held': how many in
--                    all (stats.lua reads it with the counters)
-- A held job keeps its envelope (state w): it waits in held:<key> instead of its level's due zset. Each time jobs
-- of the key leave flight (ack, nack, deadLetter, reschedule, give back, cancel, a visibility timeout) the key's
-- next held jobs go back to due, as many as it has free slots (at most 100 per key and call).
-- Commands are per script call, not per job nor per key: the running counts of a call's keys are read with one
-- HMGET (keyTally), changed in Lua and written with one HSET (and one HDEL of those that fell to 0). A claim also
-- reads the limits of a round's keys in one HMGET and writes each key's held jobs with one ZADD; jobs leaving
-- flight cost one HMGET of the held counts, and only keys with held jobs more.
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

-- the concurrency key of envelope `env`, or nil (finds the payload field after the third '|', as envSplit, without
-- reading the other fields: claim and ack call it for every job)
local function envKey(env)
  local i = string.find(env, '|', 14, true)
  i = string.find(env, '|', i + 1, true)
  return (keyAt(env, string.find(env, '|', i + 1, true) + 1))
end

-- the most values per key or member one command here takes: Lua's unpack stops short of 8,000 values
local CHUNK = 1000

-- the running counts of one script call (the running hash): keyTallyRead reads the counts of the keys it does not
-- know yet (one HMGET), keyTallyAdd changes one in Lua, keyTallyWrite writes those that changed: one HSET of the
-- counts above 0 and one HDEL of those at 0
local function keyTally(qp)
  return {qp = qp, count = {}, stored = {}, changed = {}, order = {}}
end

-- reads the running counts of the keys in the list `keys` (repeats allowed) that `t` does not know yet: one HMGET
local function keyTallyRead(t, keys)
  local new, seen = {}, {}
  for _, key in ipairs(keys) do
    if t.count[key] == nil and not seen[key] then
      seen[key] = true
      new[#new + 1] = key
    end
  end
  for from = 1, #new, CHUNK do
    local got = redis.call('HMGET', t.qp .. 'running', unpack(new, from, math.min(from + CHUNK - 1, #new)))
    for k = 1, #got do
      local key, n = new[from + k - 1], tonumber(got[k] or 0)
      t.count[key], t.stored[key] = n, n
    end
  end
end

-- adds `n` (negative: takes) to the running count of `key`, which `t` has read; never below 0 (a job claimed by
-- a version that kept no count leaves flight uncounted: CHANGELOG, Upgrading)
local function keyTallyAdd(t, key, n)
  local c = t.count[key] + n
  if c < 0 then c = 0 end
  t.count[key] = c
  if not t.changed[key] then
    t.changed[key] = true
    t.order[#t.order + 1] = key
  end
end

-- writes the counts `t` changed since it read or last wrote them: one HSET of those above 0, one HDEL of those at
-- 0 (per CHUNK keys); a count back where it was is not written
local function keyTallyWrite(t)
  local set, del = {}, {}
  for _, key in ipairs(t.order) do
    local c = t.count[key]
    if c ~= t.stored[key] then
      if c > 0 then
        set[#set + 1] = key
        set[#set + 1] = c
      else
        del[#del + 1] = key
      end
      t.stored[key] = c
    end
  end
  t.changed, t.order = {}, {}
  for from = 1, #set, 2 * CHUNK do
    redis.call('HSET', t.qp .. 'running', unpack(set, from, math.min(from + 2 * CHUNK - 1, #set)))
  end
  for from = 1, #del, CHUNK do
    redis.call('HDEL', t.qp .. 'running', unpack(del, from, math.min(from + CHUNK - 1, #del)))
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
-- what it does not know yet of the round's keys: their limits and their running counts (one HMGET each for all
-- of them; the counts of keys whose jobs left flight earlier in the call are known already). keyAdmit(adm, key,
-- member, level, score) then judges each due job of a key in claim order (a claimed job counts 1 more for its
-- key, limited or not); keyAdmitted(adm) writes what was judged: the running counts (one HSET, keyTallyWrite),
-- per key one ZADD of its held jobs to held:<key> (HELD_SPAN score) with one HINCRBY of its held count, and one
-- HINCRBY of the total held.
local function keyAdmission(qp, tally)
  return {qp = qp, tally = tally or keyTally(qp), known = {}, limit = {}, held = {}, heldKeys = {}}
end

-- reads the limits and running counts of the keys in the list `keys` (repeats allowed) that `adm` does not know yet
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
  keyTallyRead(adm.tally, new)
  for _, key in ipairs(new) do
    adm.known[key] = true
    adm.limit[key] = limits[key]
  end
end

-- whether the due job `member` (envelope `env`, due at `score`) of `key` (known to `adm` by keyRound) may be
-- claimed now: true when its key has a free slot (the job takes it), false when the job is held
local function keyAdmit(adm, key, member, env, score)
  local limit = adm.limit[key]
  if limit and adm.tally.count[key] >= limit then
    local held = adm.held[key]
    if not held then
      held = {}
      adm.held[key] = held
      adm.heldKeys[#adm.heldKeys + 1] = key
    end
    held[#held + 1] = (9 - envLevel(env)) * HELD_SPAN + tonumber(score)
    held[#held + 1] = member
    return false
  end
  keyTallyAdd(adm.tally, key, 1)
  return true
end

-- writes what `adm` judged: the running counts, the held jobs to held:<key> and their counts
local function keyAdmitted(adm)
  local qp, total = adm.qp, 0
  keyTallyWrite(adm.tally)
  for _, key in ipairs(adm.heldKeys) do
    local held = adm.held[key]
    for from = 1, #held, 2 * CHUNK do
      redis.call('ZADD', qp .. 'held:' .. key, unpack(held, from, math.min(from + 2 * CHUNK - 1, #held)))
    end
    heldField(qp, key, #held / 2)
    total = total + #held / 2
  end
  if total > 0 then redis.call('HINCRBY', qp .. 'stats', 'held', total) end
end

-- the due ms and the level of a held score
local function heldDue(score)
  local rank = math.floor(tonumber(score) / HELD_SPAN)
  return tonumber(score) - rank * HELD_SPAN, 9 - rank
end

-- moves the next held jobs of `key` (limit `limit`, nil: none; `taken` jobs of it in flight) back to their due
-- zsets with their due times, as many as the key has free slots (at most RELEASE_MAX); returns the earliest due
-- ms moved back (nil when none) and how many moved. The caller counts them out of the total held
local function keyLetBack(qp, key, limit, taken)
  local free = RELEASE_MAX
  if limit then
    free = math.min(free, limit - taken)
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
-- leaves) adds one job of `key` that leaves flight (leaves false: none, only the key's held jobs are looked at),
-- and keysRelease(qp, left, tally) frees their slots: their keys' running counts read in one HMGET (those `tally`
-- does not know yet), lowered in Lua and written in one HSET / HDEL (keyTallyWrite; when `tally` is given its
-- owner writes it later, with what it adds). Then one HMGET of the held counts of all the keys tells which have
-- held jobs, and those keys' next held jobs go back to due, as many as each has free slots (keyLetBack; their
-- limits in one HMGET). Returns the earliest due ms moved back (for a wake notice), or nil when none moved
local function keyLeaving()
  return {keys = {}, n = {}}
end

local function keyLeft(left, key, leaves)
  if not left.n[key] then
    left.n[key] = 0
    left.keys[#left.keys + 1] = key
  end
  if leaves then left.n[key] = left.n[key] + 1 end
end

local function keysRelease(qp, left, tally)
  local keys = left.keys
  if #keys == 0 then return nil end
  local t = tally or keyTally(qp)
  local leaving = {}
  for _, key in ipairs(keys) do
    if left.n[key] > 0 then leaving[#leaving + 1] = key end
  end
  keyTallyRead(t, leaving)
  for _, key in ipairs(leaving) do keyTallyAdd(t, key, -left.n[key]) end
  if not tally then keyTallyWrite(t) end
  local counts = redis.call('HMGET', qp .. 'held', unpack(keys))
  local heldKeys = {}
  for k = 1, #keys do
    if counts[k] and tonumber(counts[k]) > 0 then heldKeys[#heldKeys + 1] = keys[k] end
  end
  if #heldKeys == 0 then return nil end
  local limits = keyLimits(qp, heldKeys)
  local limited = {}
  for _, key in ipairs(heldKeys) do
    if limits[key] then limited[#limited + 1] = key end
  end
  keyTallyRead(t, limited)
  local earliest, moved = nil, 0
  for _, key in ipairs(heldKeys) do
    local due, n = keyLetBack(qp, key, limits[key], t.count[key])
    if due and (earliest == nil or due < earliest) then earliest = due end
    moved = moved + n
  end
  if moved > 0 then redis.call('HINCRBY', qp .. 'stats', 'held', -moved) end
  return earliest
end

-- frees the slot of one job of `key` when `leaves` (a job of it leaves flight), then moves the key's next held
-- jobs back to due as keysRelease does; returns the earliest due ms moved back, or nil when none moved
local function keyRelease(qp, key, leaves)
  local left = keyLeaving()
  keyLeft(left, key, leaves)
  return keysRelease(qp, left)
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
