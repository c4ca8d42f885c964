-- enqueue: adds one or more jobs (a batch of at most a few hundred per call), skipping ids that exist.
--
-- Envelope layout (the value of the jobs hash, one field per job id):
--   <seq: 12 hex digits><state: w|f|x><attempts>|<receipt>|<due ms>|<payload JSON>
-- state w = waiting in the due zset, f = in flight, x = dead. The due/in-flight/dead zset member of a job
-- is <seq><id>, so jobs with equal scores come out in enqueue (FIFO) order.
--
-- KEYS[1] due zset (score = due time, epoch ms)
-- KEYS[2] jobs hash (id -> envelope)
-- KEYS[3] sequence counter (string)
-- ARGV[1] wake channel; published with the due ms when a new job becomes the earliest one
-- ARGV[2] '1' to publish with SPUBLISH (Redis 7.0+ cluster: sharded pub/sub; the channel has the queue's
--         hash tag, so the notice stays in its shard), else PUBLISH
-- ARGV[3..] four per job: id, mode ("d" = delay ms from the server's TIME, "a" = absolute epoch ms),
--           the delay or time in ms, payload
-- returns {now ms, status 1, due ms 1, status 2, due ms 2, ...}: status 1 = added, 0 = the id exists and
--         nothing was written (due ms is then its current due time, or -1 when it is in flight or dead)
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = (#ARGV - 2) / 4
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local headScore = head[2] and tonumber(head[2])
local base = redis.call('INCRBY', KEYS[3], n) - n
local out = {now}
local minNew = nil
for i = 0, n - 1 do
  local b = 3 + i * 4
  local id = ARGV[b]
  local prefix = string.format('%012x', base + i + 1)
  if redis.call('HSETNX', KEYS[2], id, prefix .. 'w0|||' .. ARGV[b + 3]) == 0 then
    local existing = redis.call('HGET', KEYS[2], id)
    local score = redis.call('ZSCORE', KEYS[1], string.sub(existing, 1, 12) .. id)
    out[#out + 1] = 0
    out[#out + 1] = score and tonumber(score) or -1
  else
    local due = tonumber(ARGV[b + 2])
    if ARGV[b + 1] ~= 'a' then due = now + due end
    redis.call('ZADD', KEYS[1], due, prefix .. id)
    if minNew == nil or due < minNew then minNew = due end
    out[#out + 1] = 1
    out[#out + 1] = due
  end
end
if minNew ~= nil and (headScore == nil or minNew < headScore) then
  redis.call(ARGV[2] == '1' and 'SPUBLISH' or 'PUBLISH', ARGV[1], minNew)
end
return out
