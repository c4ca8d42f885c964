-- nack: settles a failed in-flight job whose receipt matches: back to due after a delay, or to the
-- dead letters when it has used its attempts (or when ARGV[5] is 0: dead-letter at once).
--
-- KEYS[1] jobs hash, KEYS[2] in-flight zset, KEYS[3] due zset (of level 0: a job with a priority goes back to its level, levels.lua), KEYS[4] dead zset, KEYS[5] errors hash,
-- KEYS[6] stats hash ('dead' += 1 when the job is moved to the dead letters),
-- KEYS[7] the replay record of this call (replay.lua: its slot's record; see ARGV[9])
-- ARGV[1] job id, ARGV[2] receipt, ARGV[3] error text (stored as the last error),
-- ARGV[4] retry delay ms, ARGV[5] max attempts (0 = dead-letter now), ARGV[6] wake channel,
-- ARGV[7] '1' to publish with SPUBLISH (Redis 7.0+ cluster), else PUBLISH,
-- ARGV[8] the cause stored in the dead envelope's receipt field when it dies with ARGV[5] = 0 ('d' deadLetter,
--         'u' undecodable payload); when it used its attempts the cause is 'a'
-- ARGV[9] the replay argument, '<ttl ms> <call id>' (replay.lua)
-- returns 0 stale receipt or no such job, 1 due again at now + delay, 2 moved to the dead letters
-- A job with a concurrency key frees its slot and lets the key's next held jobs back to due (keylimits.lua), with
-- a wake notice.
--
-- Replay: a resend of this call (same KEYS[7]) after a lost reply returns the first try's result, so a nack or
-- deadLetter whose reply was lost is told "settled", not "stale", about its own earlier success.
--@include envelope.lua
--@include levels.lua
--@include keylimits.lua
--@include notice.lua
--@include replay.lua
if redis.replicate_commands then redis.replicate_commands() end
local earlier = replayed(KEYS[7], ARGV[9])
if earlier then return earlier end
local id = ARGV[1]
local env = redis.call('HGET', KEYS[1], id)
if not env or envState(env) ~= 'f' then return recorded(KEYS[7], ARGV[9], 0) end
local attempts, receipt, i3 = envSplit(env)
if receipt ~= ARGV[2] then return recorded(KEYS[7], ARGV[9], 0) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member = envMember(env, id)
local maxAttempts = tonumber(ARGV[5])
redis.call('ZREM', KEYS[2], member)
redis.call('HSET', KEYS[5], id, ARGV[3])
local key = keyAt(env, i3 + 1)
local function release()
  if not key then return end
  local moved = keyRelease(queuePrefix(KEYS[1]), key, true)
  if moved then notice(ARGV[7], ARGV[6], moved) end
end
if maxAttempts == 0 or attempts >= maxAttempts then
  redis.call('ZADD', KEYS[4], now, member)
  local cause = maxAttempts == 0 and (ARGV[8] or 'd') or 'a'
  redis.call('HSET', KEYS[1], id, envReset(env, 'x', attempts, i3, cause))
  redis.call('HINCRBY', KEYS[6], 'dead', 1)
  release()
  return recorded(KEYS[7], ARGV[9], 2)
end
local due = now + tonumber(ARGV[4])
local level = levelAt(env, i3 + 1)
-- the head of the job's level: with other levels in use a notice may wake a worker that finds nothing new
local head = redis.call('ZRANGE', levelKey(KEYS[3], level), 0, 0, 'WITHSCORES')
addWaiting(KEYS[3], level, due, member)
redis.call('HSET', KEYS[1], id, envReset(env, 'w', attempts, i3))
if not head[2] or due < tonumber(head[2]) then notice(ARGV[7], ARGV[6], due) end
release()
return recorded(KEYS[7], ARGV[9], 1)
