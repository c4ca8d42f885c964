-- dead_list: the oldest dead letters first (read only).
--
-- KEYS[1] dead zset, KEYS[2] jobs hash, KEYS[3] errors hash
-- ARGV[1] max number to return
-- returns {id 1, envelope 1, last error 1 ("" if none), died at ms 1, id 2, ...}
local out = {}
local dead = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
for k = 1, #dead, 2 do
  local id = string.sub(dead[k], 13)
  local env = redis.call('HGET', KEYS[2], id)
  if env then
    out[#out + 1] = id
    out[#out + 1] = env
    out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
    out[#out + 1] = tonumber(dead[k + 1])
  end
end
return out
