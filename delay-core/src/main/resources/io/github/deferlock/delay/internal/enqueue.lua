-- enqueue: adds one or more jobs (a batch of at most a few hundred per call), skipping ids that exist.
--
-- Envelope layout (the value of the jobs hash, one field per job id):
--   <seq: 12 hex digits><state: w|f|x><attempts>|<receipt>|<due ms>|<payload JSON>
-- state w = waiting in the due zset, f = in flight, x = dead. A job due before 1970 (a negative time) waits
-- with score 0, due at once, and its waiting envelope keeps the requested time in the due ms field. The due/in-flight/dead zset member of a job
-- is <seq><id>, so jobs with equal scores come out in enqueue (FIFO) order.
--
-- One job: HSETNX, ZADD, then ZRANK of the new member (0 = it is the earliest). A batch: one HMGET for the
-- existence check, one variadic HSET and one variadic ZADD for the new jobs, the head read once.
--
-- KEYS[1] due zset (score = due time, epoch ms)
-- KEYS[2] jobs hash (id -> envelope)
-- KEYS[3] sequence counter (string)
-- ARGV[1] wake channel; published with the due ms when a new job becomes the earliest one
-- ARGV[2] '1' to publish with SPUBLISH (Redis 7.0+ cluster: sharded pub/sub; the channel has the queue's
--         hash tag, so the notice stays in its shard), else PUBLISH
-- ARGV[3..] four per job: id, mode ("d" = delay ms from the server's TIME, "a" = absolute epoch ms),
--           the delay or time in ms, payload
-- returns {now ms, status 1, due ms 1, status 2, due ms 2, ...}: status 1 = added, 0 = the id exists (or
--         came earlier in this call) and nothing was written (due ms is then its current due time, or nil
--         when it is in flight or dead); a due time before 1970 is reported as requested
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = (#ARGV - 2) / 4
local base = redis.call('INCRBY', KEYS[3], n) - n

local function publish(due)
  redis.call(ARGV[2] == '1' and 'SPUBLISH' or 'PUBLISH', ARGV[1], due)
end

local function current(id, env)
  local score = redis.call('ZSCORE', KEYS[1], string.sub(env, 1, 12) .. id)
  if not score then return false end
  local i1 = string.find(env, '|', 14, true)
  local i2 = string.find(env, '|', i1 + 1, true)
  local requested = string.sub(env, i2 + 1, string.find(env, '|', i2 + 1, true) - 1)
  return tonumber(requested ~= '' and requested or score)
end

-- the zset score, the envelope's due field and the due ms to report: before 1970 due at once (score 0)
local function dueOf(mode, ms)
  local due = tonumber(ms)
  if mode ~= 'a' then due = now + due end
  if due < 0 then return 0, ms, due end
  return due, '', due
end

if n == 1 then
  local id = ARGV[3]
  local prefix = string.format('%012x', base + 1)
  local due, requested, shown = dueOf(ARGV[4], ARGV[5])
  if redis.call('HSETNX', KEYS[2], id, prefix .. 'w0||' .. requested .. '|' .. ARGV[6]) == 0 then
    return {now, 0, current(id, redis.call('HGET', KEYS[2], id))}
  end
  redis.call('ZADD', KEYS[1], due, prefix .. id)
  -- every older member has a smaller seq, so rank 0 means strictly earlier than the old head (or none)
  if redis.call('ZRANK', KEYS[1], prefix .. id) == 0 then publish(due) end
  return {now, 1, shown}
end

local ids = {}
for i = 1, n do ids[i] = ARGV[4 * i - 1] end
local existing = redis.call('HMGET', KEYS[2], unpack(ids))
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local headScore = head[2] and tonumber(head[2])
local digits = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'}
local format = string.format
local out = {now}
local fields, scored, added = {}, {}, {}
local o, f = 1, 0
local stem, stemHigh
local minNew
for i = 1, n do
  local b = 4 * i - 1
  local id = ARGV[b]
  if existing[i] then
    out[o + 1] = 0
    out[o + 2] = current(id, existing[i])
  elseif added[id] then
    out[o + 1] = 0
    out[o + 2] = added[id]
  else
    -- the 12-hex-digit seq without a string.format per job: 11 digits change only every 16 jobs
    local seq = base + i
    local low = seq % 16
    local high = (seq - low) / 16
    if high ~= stemHigh then
      stem = format('%011x', high)
      stemHigh = high
    end
    local prefix = stem .. digits[low + 1]
    local due, requested, shown = dueOf(ARGV[b + 1], ARGV[b + 2])
    fields[f + 1] = id
    fields[f + 2] = prefix .. 'w0||' .. requested .. '|' .. ARGV[b + 3]
    scored[f + 1] = due
    scored[f + 2] = prefix .. id
    f = f + 2
    added[id] = shown
    if minNew == nil or due < minNew then minNew = due end
    out[o + 1] = 1
    out[o + 2] = shown
  end
  o = o + 2
end
if f > 0 then
  redis.call('HSET', KEYS[2], unpack(fields))
  redis.call('ZADD', KEYS[1], unpack(scored))
end
if minNew ~= nil and (headScore == nil or minNew < headScore) then publish(minNew) end
return out
