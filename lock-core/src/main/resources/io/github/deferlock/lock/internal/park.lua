-- Parks one item of deferred work behind a lock key: appends it to the key's parked FIFO, unless it is there
-- already (a resend, or a redelivered message with the same id), and makes the caller's drain token the key's
-- drainer when the key has none. Items run in this order, one at a time, under the lock (drain.lua, pop.lua).
--
-- KEYS[1]  parked FIFO           p{e}:parked (list of item ids, arrival order; same hash tag as the lock)
-- KEYS[2]  parked items          p{e}:parked-items (hash: item id -> payload, opaque to this script)
-- KEYS[3]  drainer               p{e}:drainer (string: the drain token of the process draining the key)
-- ARGV[1]  item id (1 to 512 bytes)
-- ARGV[2]  payload
-- ARGV[3]  the most items the key may have parked (>= 1)
-- ARGV[4]  the caller's drain token
-- ARGV[5]  the drainer's lease in ms, when ARGV[4] becomes the drainer
--
-- Returns {1, items parked, drainer} when parked now; {2, items parked, drainer} when the id was parked
--         already (nothing changed); {0, items parked, drainer} when the FIFO is full (nothing parked).
--         drainer is 1 when ARGV[4] is the key's drainer after the call (it was set now, or by a resend),
--         else 0 (another live drain token drains the key).
local status
local size = redis.call('LLEN', KEYS[1])
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  status = 2
elseif size >= tonumber(ARGV[3]) then
  status = 0
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  size = redis.call('RPUSH', KEYS[1], ARGV[1])
  status = 1
end
local drainer = 0
if size > 0 then
  if redis.call('SET', KEYS[3], ARGV[4], 'NX', 'PX', ARGV[5]) then
    drainer = 1
  elseif redis.call('GET', KEYS[3]) == ARGV[4] then
    drainer = 1
  end
end
return {status, size, drainer}
