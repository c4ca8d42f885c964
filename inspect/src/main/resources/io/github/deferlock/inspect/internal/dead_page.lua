-- A page of dead letters, oldest first (read only).
-- KEYS: [1] dead zset, [2] jobs hash, [3] errors hash
-- ARGV: [1] offset (>= 0), [2] limit (1..1000), [3] envelope bytes to return at most
-- Returns: {total, id, envelope length, envelope start, last error or '', died ms, ...}
-- A dead member is <12 hex seq><id>.
local total = redis.call('ZCARD', KEYS[1])
local first = tonumber(ARGV[1])
local members = redis.call('ZRANGE', KEYS[1], first, first + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local cap = tonumber(ARGV[3])
local out = {total}
for i = 1, #members, 2 do
  local id = string.sub(members[i], 13)
  local env = redis.call('HGET', KEYS[2], id) or ''
  out[#out + 1] = id
  out[#out + 1] = string.len(env)
  out[#out + 1] = string.sub(env, 1, cap)
  out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
  out[#out + 1] = tonumber(members[i + 1])
end
return out
