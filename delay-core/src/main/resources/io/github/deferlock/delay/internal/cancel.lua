-- cancel: deletes a job in any state (due, in flight or dead). An in-flight job's later ack is refused.
--
-- KEYS[1] jobs hash, KEYS[2] due zset, KEYS[3] in-flight zset, KEYS[4] dead zset, KEYS[5] errors hash
-- ARGV[1] job id
-- returns 1 when the job existed and was deleted, 0 when there was no such job
local id = ARGV[1]
local env = redis.call('HGET', KEYS[1], id)
if not env then return 0 end
local member = string.sub(env, 1, 12) .. id
redis.call('ZREM', KEYS[2], member)
redis.call('ZREM', KEYS[3], member)
redis.call('ZREM', KEYS[4], member)
redis.call('HDEL', KEYS[1], id)
redis.call('HDEL', KEYS[5], id)
return 1
