-- ack: deletes an in-flight job whose receipt matches (the handler finished it).
--
-- KEYS[1] jobs hash, KEYS[2] in-flight zset, KEYS[3] errors hash
-- ARGV[1] job id, ARGV[2] receipt from the claim
-- returns 1 when the job was deleted, 0 when the receipt is stale (the job was returned to due,
--         redelivered, settled or cancelled since that claim) or the job does not exist
local id = ARGV[1]
local env = redis.call('HGET', KEYS[1], id)
if not env or string.sub(env, 13, 13) ~= 'f' then return 0 end
local i1 = string.find(env, '|', 14, true)
local i2 = string.find(env, '|', i1 + 1, true)
if string.sub(env, i1 + 1, i2 - 1) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[2], string.sub(env, 1, 12) .. id)
redis.call('HDEL', KEYS[1], id)
redis.call('HDEL', KEYS[3], id)
return 1
