-- Deletes the given dead letters, and only those.
-- KEYS: [1] dead zset, [2] jobs hash, [3] errors hash (a job's last error, and its progress under 0xFF + id)
-- ARGV: job ids (at most 500)
-- Returns: {1 deleted / 0 no such job or not dead, ...} per id. A job is dead when its envelope's state byte
-- (the 13th, after the 12 hex digits of its sequence) is 'x'; its dead member is <seq><id>.
local out = {}
for i = 1, #ARGV do
  local id = ARGV[i]
  local env = redis.call('HGET', KEYS[2], id)
  if env and string.sub(env, 13, 13) == 'x' then
    redis.call('ZREM', KEYS[1], string.sub(env, 1, 12) .. id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id, '\255' .. id) -- its last error and its progress (delay-core's progress_field.lua)
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
