-- One contended lock's state for the conflicts view (read only; every key is in the lock's slot).
-- KEYS: [1] lock key, [2] waiter queue, [3] parked FIFO, [4] parked items
-- ARGV: none
-- Returns: {type of the lock key, value or '', PTTL, waiters queued, items parked,
--           the oldest parked item's firstConflictMillis or -1}
local kind = redis.call('TYPE', KEYS[1]).ok
local value = ''
if kind == 'string' then
  value = redis.call('GET', KEYS[1])
end
local waiters = 0
if redis.call('TYPE', KEYS[2]).ok == 'list' then
  waiters = redis.call('LLEN', KEYS[2])
end
local parked = 0
local oldest = -1
if redis.call('TYPE', KEYS[3]).ok == 'list' then
  parked = redis.call('LLEN', KEYS[3])
  local head = redis.call('LINDEX', KEYS[3], 0)
  if head and redis.call('TYPE', KEYS[4]).ok == 'hash' then
    local payload = redis.call('HGET', KEYS[4], head)
    if payload then
      local ok, item = pcall(cjson.decode, payload)
      if ok and type(item) == 'table' and tonumber(item.firstConflictMillis) then
        oldest = tonumber(item.firstConflictMillis)
      end
    end
  end
end
return {kind, value, redis.call('PTTL', KEYS[1]), waiters, parked, oldest}
