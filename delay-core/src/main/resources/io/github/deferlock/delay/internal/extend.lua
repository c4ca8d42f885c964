-- extend: moves the visibility deadline of an in-flight job whose receipt matches to now + ARGV[3].
--
-- KEYS[1] jobs hash, KEYS[2] in-flight zset
-- ARGV[1] job id, ARGV[2] receipt, ARGV[3] new visibility timeout ms from now (server TIME)
-- returns the new deadline (epoch ms), or 0 when the receipt is stale or the job does not exist
if redis.replicate_commands then redis.replicate_commands() end
local id = ARGV[1]
local env = redis.call('HGET', KEYS[1], id)
if not env or string.sub(env, 13, 13) ~= 'f' then return 0 end
local i1 = string.find(env, '|', 14, true)
local i2 = string.find(env, '|', i1 + 1, true)
if string.sub(env, i1 + 1, i2 - 1) ~= ARGV[2] then return 0 end
local t = redis.call('TIME')
local deadline = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], 'XX', deadline, string.sub(env, 1, 12) .. id)
return deadline
