-- reschedule: returns an in-flight job whose receipt matches to due at now + delay without counting the
-- delivery as an attempt (a deferral, not a failure), optionally replacing its payload.
--
-- KEYS[1] jobs hash, KEYS[2] in-flight zset, KEYS[3] due zset (of level 0; a job with a priority goes back to its level, levels.lua),
-- KEYS[4] the replay record of this call (replay.lua: its slot's record; see ARGV[8])
-- ARGV[1] job id, ARGV[2] receipt, ARGV[3] delay ms, ARGV[4] wake channel,
-- ARGV[5] "1" to replace the payload field with ARGV[6] (headers and payload; the job keeps its priority), "0" to keep it,
-- ARGV[7] '1' to publish with SPUBLISH (Redis 7.0+ cluster), else PUBLISH, ARGV[8] the replay argument (replay.lua)
-- returns 1 when rescheduled, 0 when the receipt is stale or the job does not exist
-- A job with a concurrency key keeps it (also with a new payload), frees its slot and lets the key's next held
-- jobs back to due (keylimits.lua), with a wake notice.
--
-- Replay: a resend of this call (same KEYS[4]) after a lost reply returns the first try's result, so a
-- reschedule or give back whose reply was lost is told "rescheduled", not "stale".
--@include envelope.lua
--@include levels.lua
--@include keylimits.lua
--@include notice.lua
--@include replay.lua
if redis.replicate_commands then redis.replicate_commands() end
local earlier = replayed(KEYS[4], ARGV[8])
if earlier then return earlier end
local id = ARGV[1]
local env = redis.call('HGET', KEYS[1], id)
if not env or envState(env) ~= 'f' then return recorded(KEYS[4], ARGV[8], 0) end
local attempts, receipt, i3 = envSplit(env)
if receipt ~= ARGV[2] then return recorded(KEYS[4], ARGV[8], 0) end
attempts = attempts - 1
if attempts < 0 then attempts = 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member = envMember(env, id)
local payload
local level = levelAt(env, i3 + 1)
local key, rest = keyAt(env, i3 + 1)
if ARGV[5] == '1' then
  -- the job keeps its priority and key: the new payload field (headers and payload) goes behind their prefixes
  payload = string.sub(env, i3 + 1, rest - 1) .. ARGV[6]
else
  payload = string.sub(env, i3 + 1)
end
local due = now + tonumber(ARGV[3])
-- the head of the job's level: with other levels in use a notice may wake a worker that finds nothing new
local head = redis.call('ZRANGE', levelKey(KEYS[3], level), 0, 0, 'WITHSCORES')
redis.call('ZREM', KEYS[2], member)
addWaiting(KEYS[3], level, due, member)
redis.call('HSET', KEYS[1], id, string.sub(env, 1, 12) .. 'w' .. attempts .. '|||' .. payload)
if not head[2] or due < tonumber(head[2]) then notice(ARGV[7], ARGV[4], due) end
if key then
  local moved = keyRelease(queuePrefix(KEYS[1]), key, true)
  if moved then notice(ARGV[7], ARGV[4], moved) end
end
return recorded(KEYS[4], ARGV[8], 1)
