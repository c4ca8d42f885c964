-- The head and the payload start of one job's envelope (read only).
-- KEYS: [1] jobs hash
-- ARGV: [1] job id, [2] payload bytes to return at most
-- Returns: {} when there is no job, else {envelope head, payload start, payload length}; the head is
-- <seq><state><attempts>|<receipt>|<due ms>| (docs/queue-keys.md), empty when malformed; a header block
-- (0x1E, its decimal length, ':', the block) before the payload JSON is skipped, and a priority prefix (0x1F
-- and a digit) and a concurrency key (0x1D, its decimal length, ':', the key; keylimits.lua) before it.
local env = redis.call('HGET', KEYS[1], ARGV[1])
if not env then
  return {}
end
local p = 0
for _ = 1, 3 do
  p = string.find(env, '|', p + 1, true)
  if not p then
    return {'', '', 0}
  end
end
local s = p + 1
if string.byte(env, s) == 31 then -- a priority above 0: 0x1F and its digit (levels.lua in delay-core)
  s = s + 2
end
if string.byte(env, s) == 29 then -- a concurrency key (keylimits.lua in delay-core)
  local digits = string.match(env, '^%d+', s + 1)
  if digits then
    s = s + 1 + #digits + 1 + tonumber(digits)
  end
end
if string.byte(env, s) == 30 then
  local digits = string.match(env, '^%d+', s + 1)
  if digits then
    s = s + 1 + #digits + 1 + tonumber(digits)
  end
end
local len = #env - s + 1
if len < 0 then
  len = 0
end
return {string.sub(env, 1, p), string.sub(env, s, s + tonumber(ARGV[2]) - 1), len}
