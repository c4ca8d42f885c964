-- A page of dead letters, oldest first (read only).
-- KEYS: [1] dead zset, [2] jobs hash, [3] errors hash
-- ARGV: [1] offset (>= 0), [2] limit (1..1000), [3] payload bytes to return at most
-- Returns: {total, id, envelope head, payload start, payload length, last error or '', died ms, ...}
-- A dead member is <12 hex seq><id>. The envelope head is <seq><state><attempts>|<receipt>|<due ms>| (docs/
-- queue-keys.md); a header block (0x1E, its decimal length, ':', the block) between it and the payload JSON is
-- skipped, and a priority prefix (0x1F and a digit) and a concurrency key (0x1D, its decimal length, ':', the key;
-- keylimits.lua in delay-core) before it. An envelope that is gone or malformed gives an empty head.
local function parts(env)
  local p = 0
  for _ = 1, 3 do
    p = string.find(env, '|', p + 1, true)
    if not p then
      return '', '', 0
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
  return string.sub(env, 1, p), string.sub(env, s, s + tonumber(ARGV[3]) - 1), len
end

local total = redis.call('ZCARD', KEYS[1])
local first = tonumber(ARGV[1])
local members = redis.call('ZRANGE', KEYS[1], first, first + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local out = {total}
for i = 1, #members, 2 do
  local id = string.sub(members[i], 13)
  local head, payload, len = parts(redis.call('HGET', KEYS[2], id) or '')
  out[#out + 1] = id
  out[#out + 1] = head
  out[#out + 1] = payload
  out[#out + 1] = len
  out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
  out[#out + 1] = tonumber(members[i + 1])
end
return out
