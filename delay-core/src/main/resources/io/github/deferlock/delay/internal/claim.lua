-- claim: first acks the jobs given in ARGV[6..] (a worker's finished jobs ride along with its next claim),
-- then returns expired in-flight jobs to due (or to the dead letters once they used their attempts), then
-- moves up to ARGV[1] due jobs (the highest priority level first, levels.lua; within a level earliest due
-- first, FIFO among equal due times) to in flight with a fresh receipt. A due job with a concurrency key at its
-- limit is held aside instead (keylimits.lua) and the claim takes the next due jobs, in at most 5 rounds; a job
-- of such a key that leaves in flight here (acked, or returned after its visibility timeout) moves the key's next
-- held jobs back to due. Work per call is bounded by ARGV[1] + ARGV[4] + the number of acks (at most 500) + the
-- priority levels in use (at most 9); with keys, by 5 * max(ARGV[1], 100) jobs taken and up to 100 held jobs moved
-- back per key of the keyed jobs that left.
--
-- KEYS[1] due zset of priority 0 (the levels' zsets and the levels key derive from it, levels.lua),
-- KEYS[2] in-flight zset (score = visibility deadline, epoch ms), KEYS[3] jobs hash,
-- KEYS[4] dead zset (score = time of death, epoch ms), KEYS[5] errors hash (id -> last error; 0xFF + id ->
-- progress, progress_field.lua: both deleted with an acked job),
-- KEYS[6] sequence counter, KEYS[7] the replay record of this call (replay.lua: its slot's record; see ARGV[5])
-- KEYS[8] stats hash: 'acked' += the acks that matched, 'dead' += the expired jobs moved to the dead letters
-- KEYS[9] the paused marker (pause.lua): while it exists no due job is claimed (acks and returns still run)
-- KEYS[10] the rate limit, KEYS[11] its GCRA state (queue_rate.lua): with a limit, a claim takes at most what
-- the limit allows now; jobs over it stay due (no attempt spent) and the next wake is no earlier than the slot
-- KEYS[12] the liveness mark (liveness.lua): while its hold lasts, only in-flight jobs whose deadline is at most
-- the hold's start are returned; a worker's claim refreshes it and starts a hold when it finds a gap
-- ARGV[1] max jobs to claim, ARGV[2] visibility timeout ms, ARGV[3] max attempts,
-- ARGV[4] max expired in-flight jobs to return in this call, ARGV[5] the replay argument, '<ttl ms> <call id>' (replay.lua),
-- ARGV[6] '1' for a DelayQueueWorker's claim (it keeps the liveness mark), else '0'
-- ARGV[7..] pairs to ack first: job id, receipt (as in ack.lua)
-- returns {now micros, next wake ms (earliest due or visibility deadline, or with priority levels any due time
--          already past, which wakes as soon; -1 when both are empty or the queue
--          is paused: a paused worker waits for the resume notice or its fallback poll),
--          {ack result per pair, 1 deleted or 0 stale, as in ack.lua},
--          id 1, envelope 1 (after the claim), last error 1 ("" if none), id 2, ...}
--
-- Replay: the client names each call by a slot (KEYS[7]) and a call id in ARGV[5] (the same when it resends the call after
-- a lost reply). When that record holds this call's id the call already ran: nothing is acked or claimed again; the reply
-- gives the recorded ack results and those jobs of the recorded claim that are still in flight under the
-- recorded receipt, so a lost reply never leaves claimed jobs in flight with no handler, spending an attempt.
-- The record (cmsgpack: {ack flags, id 1, receipt 1, ...}) is written only when the call acked or claimed.
--@include envelope.lua
--@include levels.lua
--@include keylimits.lua
--@include progress_field.lua
--@include replay.lua
--@include queue_rate.lua
--@include liveness.lua
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(nowUs / 1000)
local maxAttempts = tonumber(ARGV[3])
local FIRST_ACK = 7
local QP = queuePrefix(KEYS[3])
local vis = tonumber(ARGV[2])

-- the liveness mark (liveness.lua): a worker's claim after a gap starts a hold; while a hold lasts, in-flight
-- jobs whose deadline is later than holdFrom are not returned before holdUntil
local mark = aliveRead(KEYS[12])
local holdFrom, holdUntil, markFields
if ARGV[6] == '1' and aliveGap(mark, now, vis) then
  holdFrom, holdUntil = mark[1], now + vis
  markFields = {'seen', now, 'from', holdFrom, 'until', holdUntil}
elseif mark[3] and now < mark[3] then
  holdFrom, holdUntil = mark[2], mark[3]
end
if ARGV[6] == '1' and not markFields and aliveStale(mark, now, vis) then markFields = {'seen', now} end

local function wakeAt(levels)
  local nextDue = earliestDue(KEYS[1], levels, now)
  local nextDeadline = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  local wake = -1
  if nextDue then wake = nextDue end
  local deadline = tonumber(nextDeadline[2])
  -- a held deadline wakes no earlier than the hold's end
  if deadline and holdFrom and deadline > holdFrom and deadline < holdUntil then deadline = holdUntil end
  if deadline and (wake < 0 or deadline < wake) then wake = deadline end
  return wake
end

local r = replayed(KEYS[7], ARGV[5])
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
-- the keyed jobs that leave flight here (acked, or returned after their visibility timeout), grouped by key: their
-- slots are freed and their keys' held jobs let back once, after the returns and before the admission below, which
-- so counts a timed-out claim no more (keylimits.lua). The running counts of the call's keys are read once and
-- written once, after the admission (keyAdmitted), or before a paused queue's return
local left = keyLeaving()
local tally = keyTally(QP)
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
      local key = envKey(env)
      if key then keyLeft(left, key, true) end
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

local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', holdFrom and math.min(now, holdFrom) or now, 'LIMIT',
  0, tonumber(ARGV[4]))
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
    local key = keyAt(env, i3 + 1)
    if key then keyLeft(left, key, true) end
  end
end

if died > 0 then redis.call('HINCRBY', KEYS[8], 'dead', died) end
keysRelease(QP, left, tally)

local out = {nowUs, -1, acks}
local claimed = {acks}
-- one EXISTS for both the paused marker and the priority levels: a queue that is neither paused nor uses
-- priorities pays one command, as before priorities existed
local levels = {}
if redis.call('EXISTS', KEYS[9], KEYS[1] .. ':levels') > 0 then
  if redis.call('EXISTS', KEYS[9]) == 1 then
    keyTallyWrite(tally)
    if #acks > 0 then recorded(KEYS[7], ARGV[5], claimed) end
    aliveWrite(KEYS[12], markFields)
    return out
  end
  levels = levelsOf(KEYS[1])
end
local wanted = tonumber(ARGV[1])
-- rate limit per queue (queue_rate.lua): take at most what the limit allows now; the key rounds below never
-- claim more than that
local rateLimit
wanted, rateLimit = queueRateAllowed(KEYS[10], KEYS[11], nowUs, wanted)
local deadline = now + tonumber(ARGV[2])
-- one round: takes up to n due jobs off their zsets, {member, score, ...}: the highest level first (levels.lua),
-- then level 0; within a level earliest due first, FIFO among equal times
local function collect(n)
  local got = {}
  local function take(key)
    local part = redis.call('ZRANGEBYSCORE', key, '-inf', now, 'WITHSCORES', 'LIMIT', 0, n - #got / 2)
    if #part == 0 then return end
    local members = {}
    for k = 1, #part, 2 do
      members[#members + 1] = part[k]
      got[#got + 1] = part[k]
      got[#got + 1] = part[k + 1]
    end
    redis.call('ZREM', key, unpack(members))
  end
  for _, level in ipairs(levels) do
    if #got / 2 >= n then break end
    local key = KEYS[1] .. ':' .. level
    take(key)
    if #got / 2 < n and redis.call('EXISTS', key) == 0 then redis.call('ZREM', KEYS[1] .. ':levels', level) end
  end
  if #got / 2 < n then take(KEYS[1]) end
  return got
end
-- the jobs to claim: a job whose concurrency key is at its limit is held (keylimits.lua) and another round takes
-- the shortfall, at least 100 jobs (a backlog of one key at its limit is set aside in few calls), at most 5 rounds;
-- a job taken beyond the claim's size goes back where it was, unjudged. A round that holds nothing ends the loop
-- (jobs without a key: one round, as before keys existed)
local members, ids, scores, envs = {}, {}, {}, {}
local admission = keyAdmission(QP, tally)
for round = 1, 5 do
  local got = collect(round == 1 and wanted or math.max(wanted - #ids, 100))
  if #got == 0 then break end
  local gotIds = {}
  for k = 1, #got, 2 do gotIds[#gotIds + 1] = string.sub(got[k], 13) end
  local gotEnvs = redis.call('HMGET', KEYS[3], unpack(gotIds))
  local gotKeys, roundKeys = {}, {}
  for k = 1, #gotIds do
    local key = gotEnvs[k] and envKey(gotEnvs[k])
    if key then
      gotKeys[k] = key
      roundKeys[#roundKeys + 1] = key
    end
  end
  keyRound(admission, roundKeys)
  local held = 0
  for k = 1, #gotIds do
    local env, member, score, key = gotEnvs[k], got[2 * k - 1], got[2 * k], gotKeys[k]
    if #ids >= wanted then
      if env then addWaiting(KEYS[1], envLevel(env), score, member) end
    elseif key and not keyAdmit(admission, key, member, env, score) then
      held = held + 1
    else
      members[#members + 1] = member
      ids[#ids + 1] = gotIds[k]
      scores[#scores + 1] = score
      envs[#ids] = env
    end
  end
  if held == 0 or #ids >= wanted then break end
end
keyAdmitted(admission)
if #ids > 0 then
  local count = #ids
  -- the ZREMs in collect() are this call's first writes when it acks nothing, on purpose: at maxmemory with
  -- noeviction Redis refuses a script whose first write may use memory (INCRBY, HSET, ZADD: "OOM command not
  -- allowed") but lets a script that has written go on, so workers still claim, run and ack (delete) the
  -- stored jobs and can drain the queue
  local receipt = redis.call('INCRBY', KEYS[6], count) - count
  local errors = redis.call('HMGET', KEYS[5], unpack(ids))
  local fields, scored = {}, {}
  for k = 1, count do
    local env = envs[k]
    if env then
      local attempts, _, i3, requested = envSplit(env)
      receipt = receipt + 1
      -- a job scheduled before 1970 (score 0) keeps its requested due time
      local updated = string.sub(env, 1, 12) .. 'f' .. (attempts + 1) .. '|' .. string.format('%x', receipt)
        .. '|' .. (requested ~= '' and requested or scores[k]) .. string.sub(env, i3)
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
out[2] = queueRateSpent(KEYS[11], nowUs, rateLimit, #ids, out[2])
aliveWrite(KEYS[12], markFields)
return out
