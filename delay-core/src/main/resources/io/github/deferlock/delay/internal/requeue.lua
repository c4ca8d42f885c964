-- requeue: moves dead letters back to due now with their attempts reset to 0 (the last error is kept).
--
-- KEYS[1] dead zset, KEYS[2] due zset (of level 0; a job goes back to its level, levels.lua), KEYS[3] jobs hash
-- ARGV[1] wake channel, ARGV[2] "id" to requeue the job ARGV[3], or "oldest" to requeue up to ARGV[3]
--         of the oldest dead letters, ARGV[4] '1' to publish with SPUBLISH (Redis 7.0+ cluster), else PUBLISH
-- returns the number of jobs requeued
--@include envelope.lua
--@include levels.lua
--@include notice.lua
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local members
if ARGV[2] == 'id' then
  local env = redis.call('HGET', KEYS[3], ARGV[3])
  if not env then return 0 end
  members = {envMember(env, ARGV[3])}
else
  members = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
end
local moved = 0
for _, member in ipairs(members) do
  local id = string.sub(member, 13)
  local env = redis.call('HGET', KEYS[3], id)
  if env and envState(env) == 'x' then
    local _, _, i3 = envSplit(env)
    redis.call('ZREM', KEYS[1], member)
    addWaiting(KEYS[2], levelAt(env, i3 + 1), now, member)
    redis.call('HSET', KEYS[3], id, envReset(env, 'w', 0, i3))
    moved = moved + 1
  elseif ARGV[2] ~= 'id' then
    redis.call('ZREM', KEYS[1], member)
  end
end
if moved > 0 then notice(ARGV[4], ARGV[1], now) end
return moved
