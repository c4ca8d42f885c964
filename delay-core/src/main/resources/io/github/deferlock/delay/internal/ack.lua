-- ack: deletes in-flight jobs whose receipts match (their handlers finished them). One call acks a batch:
-- one HMGET for the envelopes, then one variadic ZREM and HDELs for all that match.
--
-- KEYS[1] jobs hash, KEYS[2] in-flight zset, KEYS[3] errors hash
-- ARGV pairs: job id 1, receipt 1, job id 2, receipt 2, ... (at most 500 pairs per call)
-- returns {result 1, result 2, ...} in ARGV order: 1 when the job was deleted, 0 when the receipt is stale
--         (the job was returned to due, redelivered, settled or cancelled since that claim), the job does
--         not exist, or the same id came earlier in this call
local n = #ARGV / 2
local ids = {}
for k = 1, n do ids[k] = ARGV[2 * k - 1] end
local envs = redis.call('HMGET', KEYS[1], unpack(ids))
local out, members, done = {}, {}, {}
local acked = {}
for k = 1, n do
  local id, env, ok = ids[k], envs[k], 0
  if env and not done[id] and string.sub(env, 13, 13) == 'f' then
    local i1 = string.find(env, '|', 14, true)
    local i2 = string.find(env, '|', i1 + 1, true)
    if string.sub(env, i1 + 1, i2 - 1) == ARGV[2 * k] then
      ok = 1
      done[id] = true
      members[#members + 1] = string.sub(env, 1, 12) .. id
      acked[#acked + 1] = id
    end
  end
  out[k] = ok
end
if #acked > 0 then
  redis.call('ZREM', KEYS[2], unpack(members))
  redis.call('HDEL', KEYS[1], unpack(acked))
  redis.call('HDEL', KEYS[3], unpack(acked))
end
return out
