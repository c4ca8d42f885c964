-- The start of one job's envelope (read only).
-- KEYS: [1] jobs hash
-- ARGV: [1] job id, [2] envelope bytes to return at most
-- Returns: {} when there is no job, else {envelope length, envelope start}
local env = redis.call('HGET', KEYS[1], ARGV[1])
if not env then
  return {}
end
return {string.len(env), string.sub(env, 1, tonumber(ARGV[2]))}
