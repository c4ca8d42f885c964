-- info: reads one job (read only).
--
-- KEYS[1] jobs hash, KEYS[2] due zset, KEYS[3] in-flight zset, KEYS[4] dead zset, KEYS[5] errors hash
-- ARGV[1] job id
-- returns {} when there is no such job, else {envelope, last error ("" if none), score} where score is
--         the due time (state w), the visibility deadline (state f) or the time of death (state x), epoch ms
--@include envelope.lua
local id = ARGV[1]
local env = redis.call('HGET', KEYS[1], id)
if not env then return {} end
local member = envMember(env, id)
local state = envState(env)
local key = KEYS[2]
if state == 'f' then key = KEYS[3] elseif state == 'x' then key = KEYS[4] end
local score = redis.call('ZSCORE', key, member)
return {env, redis.call('HGET', KEYS[5], id) or '', score and tonumber(score) or -1}
