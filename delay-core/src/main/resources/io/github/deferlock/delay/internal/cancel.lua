-- cancel: deletes a job in any state (due, in flight or dead). An in-flight job's later ack is refused.
--
-- KEYS[1] jobs hash, KEYS[2] due zset (of level 0, levels.lua), KEYS[3] in-flight zset, KEYS[4] dead zset, KEYS[5] errors hash (its last error and progress),
-- KEYS[6] the replay record of this call (replay.lua; deleted after ARGV[2] ms)
-- ARGV[1] job id, ARGV[2] how long the replay record lives, ms
-- returns 1 when the job existed and was deleted, 0 when there was no such job
--
-- Replay: the client names each call by KEYS[6] (the same when it resends the call after a lost reply); when
-- the record exists the call already ran and its recorded result is returned: a resent cancel is told
-- "cancelled", and it never deletes a job enqueued again with the same id since.
--@include envelope.lua
--@include levels.lua
--@include progress_field.lua
--@include replay.lua
local earlier = replayed(KEYS[6])
if earlier then return earlier end
local id = ARGV[1]
local env = redis.call('HGET', KEYS[1], id)
if not env then return recorded(KEYS[6], ARGV[2], 0) end
local member = envMember(env, id)
redis.call('ZREM', levelKey(KEYS[2], envLevel(env)), member)
redis.call('ZREM', KEYS[3], member)
redis.call('ZREM', KEYS[4], member)
redis.call('HDEL', KEYS[1], id)
redis.call('HDEL', KEYS[5], id, progressField(id))
return recorded(KEYS[6], ARGV[2], 1)
