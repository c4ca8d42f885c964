-- claim: returns expired in-flight jobs to due (or to the dead letters once they used their attempts),
-- then moves up to ARGV[1] due jobs (earliest due first, FIFO among equal due times) to in flight with a
-- fresh receipt. Work per call is bounded by ARGV[1] + ARGV[4].
--
-- KEYS[1] due zset, KEYS[2] in-flight zset (score = visibility deadline, epoch ms), KEYS[3] jobs hash,
-- KEYS[4] dead zset (score = time of death, epoch ms), KEYS[5] errors hash (id -> last error),
-- KEYS[6] sequence counter
-- ARGV[1] max jobs to claim, ARGV[2] visibility timeout ms, ARGV[3] max attempts,
-- ARGV[4] max expired in-flight jobs to return in this call
-- returns {now micros, next wake ms (earliest due or visibility deadline; -1 when both are empty),
--          id 1, envelope 1 (after the claim), last error 1 ("" if none), id 2, ...}
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(nowUs / 1000)
local maxAttempts = tonumber(ARGV[3])

local function split(env)
  local i1 = string.find(env, '|', 14, true)
  local i2 = string.find(env, '|', i1 + 1, true)
  local i3 = string.find(env, '|', i2 + 1, true)
  return tonumber(string.sub(env, 14, i1 - 1)), string.sub(env, i1 + 1, i2 - 1), i3
end

local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
for _, member in ipairs(expired) do
  local id = string.sub(member, 13)
  local env = redis.call('HGET', KEYS[3], id)
  redis.call('ZREM', KEYS[2], member)
  if env and string.sub(env, 13, 13) == 'f' then
    local attempts, _, i3 = split(env)
    local rest = string.sub(env, i3)
    if attempts >= maxAttempts then
      redis.call('ZADD', KEYS[4], now, member)
      redis.call('HSET', KEYS[3], id, string.sub(env, 1, 12) .. 'x' .. attempts .. '||' .. rest)
      redis.call('HSET', KEYS[5], id, 'visibility timeout expired on attempt ' .. attempts .. ' of ' .. maxAttempts)
    else
      redis.call('ZADD', KEYS[1], now, member)
      redis.call('HSET', KEYS[3], id, string.sub(env, 1, 12) .. 'w' .. attempts .. '||' .. rest)
      redis.call('HSET', KEYS[5], id, 'visibility timeout expired on attempt ' .. attempts)
    end
  end
end

local out = {nowUs, -1}
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[1]))
if #due > 0 then
  local receipt = redis.call('INCRBY', KEYS[6], #due / 2) - #due / 2
  local deadline = now + tonumber(ARGV[2])
  for k = 1, #due, 2 do
    local member = due[k]
    local id = string.sub(member, 13)
    local env = redis.call('HGET', KEYS[3], id)
    redis.call('ZREM', KEYS[1], member)
    if env then
      local attempts, _, i3 = split(env)
      receipt = receipt + 1
      local updated = string.sub(env, 1, 12) .. 'f' .. (attempts + 1) .. '|' .. string.format('%x', receipt)
        .. '|' .. due[k + 1] .. string.sub(env, i3)
      redis.call('HSET', KEYS[3], id, updated)
      redis.call('ZADD', KEYS[2], deadline, member)
      out[#out + 1] = id
      out[#out + 1] = updated
      out[#out + 1] = redis.call('HGET', KEYS[5], id) or ''
    end
  end
end

local nextDue = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local nextDeadline = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local wake = -1
if nextDue[2] then wake = tonumber(nextDue[2]) end
if nextDeadline[2] and (wake < 0 or tonumber(nextDeadline[2]) < wake) then wake = tonumber(nextDeadline[2]) end
out[2] = wake
return out
