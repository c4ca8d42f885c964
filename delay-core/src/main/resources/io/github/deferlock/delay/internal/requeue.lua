-- requeue: moves dead letters back to due now with their attempts reset to 0 (the last error is kept).
--
-- KEYS[1] dead zset, KEYS[2] due zset, KEYS[3] jobs hash
-- ARGV[1] wake channel, ARGV[2] "id" to requeue the job ARGV[3], or "oldest" to requeue up to ARGV[3]
--         of the oldest dead letters, ARGV[4] '1' to publish with SPUBLISH (Redis 7.0+ cluster), else PUBLISH
-- returns the number of jobs requeued
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local members
if ARGV[2] == 'id' then
  local env = redis.call('HGET', KEYS[3], ARGV[3])
  if not env then return 0 end
  members = {string.sub(env, 1, 12) .. ARGV[3]}
else
  members = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
end
local moved = 0
for _, member in ipairs(members) do
  local id = string.sub(member, 13)
  local env = redis.call('HGET', KEYS[3], id)
  if env and string.sub(env, 13, 13) == 'x' then
    local i1 = string.find(env, '|', 14, true)
    local i2 = string.find(env, '|', i1 + 1, true)
    local i3 = string.find(env, '|', i2 + 1, true)
    redis.call('ZREM', KEYS[1], member)
    redis.call('ZADD', KEYS[2], now, member)
    redis.call('HSET', KEYS[3], id, string.sub(env, 1, 12) .. 'w0||' .. string.sub(env, i3))
    moved = moved + 1
  elseif ARGV[2] ~= 'id' then
    redis.call('ZREM', KEYS[1], member)
  end
end
if moved > 0 then redis.call(ARGV[4] == '1' and 'SPUBLISH' or 'PUBLISH', ARGV[1], now) end
return moved
