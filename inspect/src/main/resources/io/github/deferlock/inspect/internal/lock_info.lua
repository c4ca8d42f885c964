-- One lock's state (read only).
-- KEYS: [1] lock key, [2] fencing counter
-- ARGV: none
-- Returns: {type of the lock key, value or '', PTTL, counter or ''}
local kind = redis.call('TYPE', KEYS[1]).ok
local value = ''
if kind == 'string' then
  value = redis.call('GET', KEYS[1])
end
local fence = redis.pcall('GET', KEYS[2])
if type(fence) ~= 'string' then
  fence = ''
end
return {kind, value, redis.call('PTTL', KEYS[1]), fence}
