-- claim: first acks the jobs given in ARGV[6..] (a worker's finished jobs ride along with its next claim),
-- then returns expired in-flight jobs to due (or to the dead letters once they used their attempts), then
-- moves up to ARGV[1] due jobs (the highest priority level first, levels.lua; within a level earliest due
-- first, FIFO among equal due times) to in flight with a fresh receipt. Work per call is bounded by ARGV[1] +
-- ARGV[4] + the number of acks (at most 500) + the priority levels in use (at most 9).
--
-- KEYS[1] due zset of priority 0 (the levels' zsets and the levels key derive from it, levels.lua),
-- KEYS[2] in-flight zset (score = visibility deadline, epoch ms), KEYS[3] jobs hash,
-- KEYS[4] dead zset (score = time of death, epoch ms), KEYS[5] errors hash (id -> last error; 0xFF + id ->
-- progress, progress_field.lua: both deleted with an acked job),
-- KEYS[6] sequence counter, KEYS[7] the replay record of this call (a string, deleted after ARGV[5] ms)
-- KEYS[8] stats hash: 'acked' += the acks that matched, 'dead' += the expired jobs moved to the dead letters
-- KEYS[9] the paused marker (pause.lua): while it exists no due job is claimed (acks and returns still run)
-- KEYS[10] the rate limit, KEYS[11] its GCRA state (queue_rate.lua): with a limit, a claim takes at most what
-- the limit allows now; jobs over it stay due (no attempt spent) and the next wake is no earlier than the slot
-- ARGV[1] max jobs to claim, ARGV[2] visibility timeout ms, ARGV[3] max attempts,
-- ARGV[4] max expired in-flight jobs to return in this call, ARGV[5] how long the replay record lives, ms,
-- ARGV[6..] pairs to ack first: job id, receipt (as in ack.lua)
-- returns {now micros, next wake ms (earliest due or visibility deadline, or with priority levels any due time
--          already past, which wakes as soon; -1 when both are empty or the queue
--          is paused: a paused worker waits for the resume notice or its fallback poll),
--          {ack result per pair, 1 deleted or 0 stale, as in ack.lua},
--          id 1, envelope 1 (after the claim), last error 1 ("" if none), id 2, ...}
--
-- Replay: the client names each call by KEYS[7] (a fresh token per call, the same when it resends the call after
-- a lost reply). When that record exists the call already ran: nothing is acked or claimed again; the reply
-- gives the recorded ack results and those jobs of the recorded claim that are still in flight under the
-- recorded receipt, so a lost reply never leaves claimed jobs in flight with no handler, spending an attempt.
-- The record (cmsgpack: {ack flags, id 1, receipt 1, ...}) is written only when the call acked or claimed.
--@include envelope.lua
--@include levels.lua
--@include progress_field.lua
--@include replay.lua
--@include queue_rate.lua
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(nowUs / 1000)
local maxAttempts = tonumber(ARGV[3])
local FIRST_ACK = 6

local function wakeAt(levels)
  local nextDue = earliestDue(KEYS[1], levels, now)
  local nextDeadline = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  local wake = -1
  if nextDue then wake = nextDue end
  if nextDeadline[2] and (wake < 0 or tonumber(nextDeadline[2]) < wake) then wake = tonumber(nextDeadline[2]) end
  return wake
end

local r = replayed(KEYS[7])
if r then
  local out = {nowUs, -1, r[1]}
  local ids, receipts = {}, {}
  for k = 2, #r, 2 do
    ids[#ids + 1] = r[k]
    receipts[#receipts + 1] = r[k + 1]
  end
  if #ids > 0 then
    local envs = redis.call('HMGET', KEYS[3], unpack(ids))
    local errors = redis.call('HMGET', KEYS[5], unpack(ids))
    for k = 1, #ids do
      local env = envs[k]
      if env and envState(env) == 'f' and envReceipt(env) == receipts[k] then
        out[#out + 1] = ids[k]
        out[#out + 1] = env
        out[#out + 1] = errors[k] or ''
      end
    end
  end
  if redis.call('EXISTS', KEYS[9]) == 0 then out[2] = wakeAt() end
  return out
end

local acks = {}
if #ARGV >= FIRST_ACK then
  local ids = {}
  for k = FIRST_ACK, #ARGV, 2 do ids[#ids + 1] = ARGV[k] end
  local envs = redis.call('HMGET', KEYS[3], unpack(ids))
  local members, acked, done = {}, {}, {}
  for k = 1, #ids do
    local id, env, ok = ids[k], envs[k], 0
    if env and not done[id] and envState(env) == 'f' and envReceipt(env) == ARGV[FIRST_ACK - 1 + 2 * k] then
      ok = 1
      done[id] = true
      members[#members + 1] = envMember(env, id)
      acked[#acked + 1] = id
    end
    acks[k] = ok
  end
  if #acked > 0 then
    redis.call('ZREM', KEYS[2], unpack(members))
    redis.call('HDEL', KEYS[3], unpack(acked))
    redis.call('HDEL', KEYS[5], unpack(progressToo(acked)))
    redis.call('HINCRBY', KEYS[8], 'acked', #acked)
  end
end

local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
local died = 0
for _, member in ipairs(expired) do
  local id = string.sub(member, 13)
  local env = redis.call('HGET', KEYS[3], id)
  redis.call('ZREM', KEYS[2], member)
  if env and envState(env) == 'f' then
    local attempts, _, i3 = envSplit(env)
    if attempts >= maxAttempts then
      redis.call('ZADD', KEYS[4], now, member)
      died = died + 1
      -- 't': the dead envelope's receipt field holds the cause, a visibility timeout
      redis.call('HSET', KEYS[3], id, envReset(env, 'x', attempts, i3, 't'))
      redis.call('HSET', KEYS[5], id, 'visibility timeout expired on attempt ' .. attempts .. ' of ' .. maxAttempts)
    else
      addWaiting(KEYS[1], levelAt(env, i3 + 1), now, member)
      redis.call('HSET', KEYS[3], id, envReset(env, 'w', attempts, i3))
      redis.call('HSET', KEYS[5], id, 'visibility timeout expired on attempt ' .. attempts)
    end
  end
end

if died > 0 then redis.call('HINCRBY', KEYS[8], 'dead', died) end

local out = {nowUs, -1, acks}
local claimed = {acks}
-- one EXISTS for both the paused marker and the priority levels: a queue that is neither paused nor uses
-- priorities pays one command, as before priorities existed
local levels = {}
if redis.call('EXISTS', KEYS[9], KEYS[1] .. ':levels') > 0 then
  if redis.call('EXISTS', KEYS[9]) == 1 then
    if #acks > 0 then recorded(KEYS[7], ARGV[5], claimed) end
    return out
  end
  levels = levelsOf(KEYS[1])
end
-- highest level first (levels.lua), then level 0; within a level earliest due first, FIFO among equal times
local due = {}
local wanted = tonumber(ARGV[1])
-- rate limit per queue (queue_rate.lua): take at most what the limit allows now
local rateLimit
wanted, rateLimit = queueRateAllowed(KEYS[10], KEYS[11], nowUs, wanted)
local function take(key)
  local got = redis.call('ZRANGEBYSCORE', key, '-inf', now, 'WITHSCORES', 'LIMIT', 0, wanted - #due / 2)
  if #got == 0 then return end
  local members = {}
  for k = 1, #got, 2 do
    members[#members + 1] = got[k]
    due[#due + 1] = got[k]
    due[#due + 1] = got[k + 1]
  end
  redis.call('ZREM', key, unpack(members))
end
for _, level in ipairs(levels) do
  if #due / 2 >= wanted then break end
  local key = KEYS[1] .. ':' .. level
  take(key)
  if #due / 2 < wanted and redis.call('EXISTS', key) == 0 then redis.call('ZREM', KEYS[1] .. ':levels', level) end
end
if #due / 2 < wanted then take(KEYS[1]) end
if #due > 0 then
  local count = #due / 2
  local members, ids = {}, {}
  for k = 1, count do
    members[k] = due[2 * k - 1]
    ids[k] = string.sub(members[k], 13)
  end
  -- the ZREMs in take() are this call's first writes when it acks nothing, on purpose: at maxmemory with
  -- noeviction Redis refuses a script whose first write may use memory (INCRBY, HSET, ZADD: "OOM command not
  -- allowed") but lets a script that has written go on, so workers still claim, run and ack (delete) the
  -- stored jobs and can drain the queue
  local receipt = redis.call('INCRBY', KEYS[6], count) - count
  local deadline = now + tonumber(ARGV[2])
  local envs = redis.call('HMGET', KEYS[3], unpack(ids))
  local errors = redis.call('HMGET', KEYS[5], unpack(ids))
  local fields, scored = {}, {}
  for k = 1, count do
    local env = envs[k]
    if env then
      local attempts, _, i3, requested = envSplit(env)
      receipt = receipt + 1
      -- a job scheduled before 1970 (score 0) keeps its requested due time
      local updated = string.sub(env, 1, 12) .. 'f' .. (attempts + 1) .. '|' .. string.format('%x', receipt)
        .. '|' .. (requested ~= '' and requested or due[2 * k]) .. string.sub(env, i3)
      fields[#fields + 1] = ids[k]
      fields[#fields + 1] = updated
      scored[#scored + 1] = deadline
      scored[#scored + 1] = members[k]
      out[#out + 1] = ids[k]
      out[#out + 1] = updated
      out[#out + 1] = errors[k] or ''
      claimed[#claimed + 1] = ids[k]
      claimed[#claimed + 1] = string.format('%x', receipt)
    end
  end
  if #fields > 0 then
    redis.call('HSET', KEYS[3], unpack(fields))
    redis.call('ZADD', KEYS[2], unpack(scored))
  end
end

if #claimed > 1 or #acks > 0 then
  recorded(KEYS[7], ARGV[5], claimed)
end
out[2] = wakeAt(levels)
-- rate limit per queue: charge the jobs taken; a cut claim wakes no earlier than the next slot
out[2] = queueRateSpent(KEYS[11], nowUs, rateLimit, #due / 2, out[2])
return out
