-- extend: moves the visibility deadline of in-flight jobs whose receipts match to now + ARGV[1]. One call
-- serves DelayQueue.extend (one pair) and a worker's renewal tick (every job its handlers are running):
-- one HMGET for the envelopes, then one variadic ZREM and ZADD for all that match and are still in flight.
--
-- KEYS[1] jobs hash, KEYS[2] in-flight zset, KEYS[3] the liveness mark (liveness.lua)
-- ARGV[1] new visibility timeout ms from now (server TIME)
-- ARGV[2] '1' for a DelayQueueWorker's renewal (ARGV[1] is then the queue's visibility timeout): it refreshes the
--         liveness mark, unless it finds a gap (left for the next claim to find), else '0'
-- ARGV[3..] pairs: job id 1, receipt 1, job id 2, receipt 2, ... (at most 1000 pairs per call)
-- returns {result 1, result 2, ...} in pair order: the new deadline (epoch ms), or 0 when the receipt is stale
--         (the job was redelivered, settled or cancelled since that claim) or the job does not exist.
--         Idempotent: a resent call moves the same deadlines again. A job with a concurrency key keeps its
--         key's slot while it is in flight (keylimits.lua counts it until it leaves flight): nothing to move.
--@include envelope.lua
--@include liveness.lua
if redis.replicate_commands then redis.replicate_commands() end
local n = (#ARGV - 2) / 2
local ids = {}
for k = 1, n do ids[k] = ARGV[2 * k + 1] end
local envs = redis.call('HMGET', KEYS[1], unpack(ids))
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local deadline = now + tonumber(ARGV[1])
local out, scored, members = {}, {}, {}
for k = 1, n do
  local env, r = envs[k], 0
  if env and envState(env) == 'f' and envReceipt(env) == ARGV[2 * k + 2] then
    r = deadline
    local member = envMember(env, ids[k])
    if redis.call('ZSCORE', KEYS[2], member) then -- as ZADD XX: only a member still in flight
      scored[#scored + 1] = deadline
      scored[#scored + 1] = member
      members[#members + 1] = member
    end
  end
  out[k] = r
end
-- ZREM then ZADD rather than one ZADD XX: at maxmemory with noeviction Redis refuses a script whose first
-- write may use memory (ZADD: "OOM command not allowed") but lets a script that has written go on, so running
-- jobs keep their claims under OOM (claim.lua does the same)
if #members > 0 then
  redis.call('ZREM', KEYS[2], unpack(members))
  redis.call('ZADD', KEYS[2], unpack(scored))
end
if ARGV[2] == '1' then
  local mark, vis = aliveRead(KEYS[3]), tonumber(ARGV[1])
  if aliveStale(mark, now, vis) and not aliveGap(mark, now, vis) then aliveWrite(KEYS[3], {'seen', now}) end
end
return out
