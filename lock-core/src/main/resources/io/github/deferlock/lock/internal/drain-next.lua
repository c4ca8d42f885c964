-- The step between two parked items, by the drain token ARGV[1] that ran item ARGV[3] with the key's lock
-- held: removes that item when it is the head (pop.lua), then reads the next head as drain.lua does, and, when
-- the caller may go on holding the key for it, raises the fencing counter for the next item. So a drainer runs
-- the key's items one after another without a release and an acquisition between them, each item with a
-- fencing token of its own, as long as no other process waits for the key.
--
-- The caller may go on holding the key when the lock key holds exactly ARGV[4] (the caller's token: a waiter
-- that queued behind the hold marks the value with '+', acquire.lua, and then the key goes to it through the
-- release as usual). The next fencing token is the counter + 1, or the server's TIME in µs when the counter is
-- missing or below it (fence.lua, the same rising-across-data-loss rule as acquire.lua).
--
-- KEYS[1]  parked FIFO           p{e}:parked
-- KEYS[2]  parked items          p{e}:parked-items
-- KEYS[3]  failed attempts       p{e}:parked-attempts
-- KEYS[4]  drainer               p{e}:drainer
-- KEYS[5]  lock key              p{e}
-- KEYS[6]  fencing counter       p{e}:fence
-- ARGV[1]  the caller's drain token
-- ARGV[2]  the drainer's lease in ms (renewed by this call when there is a next head)
-- ARGV[3]  the id of the item that ran (removed when it is the head; a resend finds another head)
-- ARGV[4]  the caller's lock token, or '' when the caller will release the key anyway
--
-- Returns what drain.lua returns, with one element more for a next head: {2, head id, payload, failed attempts,
--         items parked, fence, the id after the head or ''}, fence the next item's fencing token when the caller may go on holding the key
--         (the counter now holds it), else 0 (the caller releases the key and acquires it again).
--         A counter that is not an integer gives fence 0 (the caller's next acquisition reports it).
redis.replicate_commands() -- TIME before writes: replicate effects (the default since Redis 5; kept for 6.2)
--@include fence.lua
if redis.call('LINDEX', KEYS[1], 0) == ARGV[3] then
  redis.call('LPOP', KEYS[1])
  redis.call('HDEL', KEYS[2], ARGV[3])
  redis.call('HDEL', KEYS[3], ARGV[3])
end
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
    local size = redis.call('LLEN', KEYS[1])
    local fence = 0
    if ARGV[4] ~= '' and redis.call('GET', KEYS[5]) == ARGV[4] then
      local raised = reserveFence(KEYS[6], 1)
      if type(raised) == 'number' then
        fence = raised
      end
    end
    return {2, id, payload, failed, size, fence, redis.call('LINDEX', KEYS[1], 1) or ''}
  end
  redis.call('LPOP', KEYS[1])
  redis.call('HDEL', KEYS[3], id)
end
redis.call('SET', KEYS[4], ARGV[1], 'PX', ARGV[2])
return {3}
