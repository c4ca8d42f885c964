-- One step of draining a key's parked FIFO (park.lua), by the process holding drain token ARGV[1]: it is, or
-- becomes, the key's drainer (when the key has none, e.g. the last one died and its lease ran out) and gets
-- the head item; or it learns that another drain token drains the key, or that nothing is parked (then the
-- key has no drainer any more, so the next park.lua makes its own caller the drainer). Called before waiting
-- for the lock and again with the lock held; the head is run only as read with the lock held.
--
-- KEYS[1]  parked FIFO           p{e}:parked
-- KEYS[2]  parked items          p{e}:parked-items
-- KEYS[3]  failed attempts       p{e}:parked-attempts (hash: item id -> failed runs)
-- KEYS[4]  drainer               p{e}:drainer
-- ARGV[1]  the caller's drain token
-- ARGV[2]  the drainer's lease in ms (renewed by this call)
--
-- Returns {0, other drain token} when another live drain token drains the key (nothing changed);
--         {1, mine} when nothing is parked (the drainer record is deleted): mine is 1 when ARGV[1] was the
--         drainer, 0 when the key had none (the caller's park.lua may not have run yet);
--         {2, head id, payload, failed attempts, items parked, the id after the head or ''} otherwise (ARGV[1] is the drainer until its
--         lease runs out). An id without a payload (never written by park.lua) is dropped from the FIFO;
--         {3} when 100 such ids were dropped: call again (the work per call stays bounded).
local drainer = redis.call('GET', KEYS[4])
if drainer and drainer ~= ARGV[1] then
  return {0, drainer}
end
for _ = 1, 100 do
  local id = redis.call('LINDEX', KEYS[1], 0)
  if not id then
    redis.call('DEL', KEYS[4])
    if drainer then
      return {1, 1}
    end
    return {1, 0}
  end
  local payload = redis.call('HGET', KEYS[2], id)
  if payload then
    redis.call('SET', KEYS[4], ARGV[1], 'PX', ARGV[2])
    local failed = tonumber(redis.call('HGET', KEYS[3], id) or '0')
    return {2, id, payload, failed, redis.call('LLEN', KEYS[1]), redis.call('LINDEX', KEYS[1], 1) or ''}
  end
  redis.call('LPOP', KEYS[1])
  redis.call('HDEL', KEYS[3], id)
end
redis.call('SET', KEYS[4], ARGV[1], 'PX', ARGV[2])
return {3}
