-- cancel: deletes a job in any state (due, in flight or dead). An in-flight job's later ack is refused.
--
-- KEYS[1] jobs hash, KEYS[2] due zset (of level 0, levels.lua), KEYS[3] in-flight zset, KEYS[4] dead zset, KEYS[5] errors hash (its last error and progress),
-- KEYS[6] the replay record of this call (replay.lua: its slot's record; see ARGV[2])
-- ARGV[1] job id, ARGV[2] the replay argument, '<ttl ms> <call id>' (replay.lua), ARGV[3] '1' to publish with SPUBLISH (Redis 7.0+
-- cluster), else PUBLISH (the wake notice below)
-- returns 1 when the job existed and was deleted, 0 when there was no such job
-- A job with a concurrency key is taken out of the key's held jobs or, in flight, frees its slot (its key's running
-- count goes 1 down), and the key's next held jobs go back to due while it has free slots (keylimits.lua), with a
-- wake notice.
--
-- Replay: the client names each call by a slot (KEYS[6]) and a call id (the same when it resends the call); when
-- the record holds this call's id the call already ran and its recorded result is returned: a resent cancel is told
-- "cancelled", and it never deletes a job enqueued again with the same id since.
--@include envelope.lua
--@include levels.lua
--@include keylimits.lua
--@include notice.lua
--@include progress_field.lua
--@include replay.lua
if redis.replicate_commands then redis.replicate_commands() end
local earlier = replayed(KEYS[6], ARGV[2])
if earlier then return earlier end
local id = ARGV[1]
local env = redis.call('HGET', KEYS[1], id)
if not env then return recorded(KEYS[6], ARGV[2], 0) end
local member = envMember(env, id)
local key = envKey(env)
local qp = queuePrefix(KEYS[1])
local state = envState(env)
if key and state == 'w' then keyUnhold(qp, key, member) end
redis.call('ZREM', levelKey(KEYS[2], envLevel(env)), member)
redis.call('ZREM', KEYS[3], member)
redis.call('ZREM', KEYS[4], member)
redis.call('HDEL', KEYS[1], id)
redis.call('HDEL', KEYS[5], id, progressField(id))
if key then
  -- only an in-flight job (state f) held a slot of its key
  local moved = keyRelease(qp, key, state == 'f')
  if moved then notice(ARGV[3], qp .. 'wake', moved) end
end
return recorded(KEYS[6], ARGV[2], 1)
