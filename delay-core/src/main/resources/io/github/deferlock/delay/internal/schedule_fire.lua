-- schedule_fire: fires the planned slots of one due recurring schedule and moves it to its next slot, in one
-- step, if nobody did it first: the schedule's next slot must still be ARGV[2] and its definition still hash
-- to ARGV[3] (a compare-and-set), so among any number of workers each slot fires once. A resend after a lost
-- reply finds the next slot moved and changes nothing.
--
-- Each slot is a job with the id '<schedule id>@<slot as ISO-8601>' (made by the client), due at the slot
-- time; a job id that exists is left alone. The envelope is the one enqueue.lua writes.
--
-- KEYS[1] schedule-next zset (schedule id -> next slot, epoch ms)
-- KEYS[2] schedules hash (schedule id -> definition JSON)
-- KEYS[3] due zset
-- KEYS[4] jobs hash
-- KEYS[5] sequence counter
-- KEYS[6] stats hash ('enqueued' counts the jobs written)
-- KEYS[7] schedule-running hash (schedule id -> '<delay ms>|<job id>', schedule_wait.lua)
-- ARGV[1] schedule id
-- ARGV[2] the next slot the plan started from, epoch ms
-- ARGV[3] sha1 (hex) of the definition the plan read
-- ARGV[4] the next slot after the plan, epoch ms; '-1': none (the schedule leaves the zset, its definition stays)
-- ARGV[5] wake channel; ARGV[6] '1' to SPUBLISH, else PUBLISH
-- ARGV[7] the payload field of the jobs (headers and payload, as enqueue.lua stores it)
-- ARGV[8] a fixed-delay schedule's delay, ms, else '0'. A fixed-delay fire has one slot; the schedule then
--         waits for its job: schedule-running gets '<delay>|<job id>' and the schedule's score becomes the time a
--         ticker looks at the job, now + ARGV[9] (ARGV[4] is ignored)
-- ARGV[9] how long until a waiting schedule looks at its job, ms
-- ARGV[10..] two per slot: job id, slot ms (each at most now)
-- returns {now ms, status, jobs written}: status 1 fired, 0 stale (the next slot or the definition changed:
--         someone else fired it, or it was updated or removed), -1 a slot is after now (nothing written)
--@include notice.lua
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return {now, 0, 0} end
local def = redis.call('HGET', KEYS[2], ARGV[1])
if not def or redis.sha1hex(def) ~= ARGV[3] then return {now, 0, 0} end
local n = (#ARGV - 9) / 2
for i = 1, n do
  if tonumber(ARGV[9 + 2 * i]) > now then return {now, -1, 0} end
end
local written = 0
local earliest
if n > 0 then
  local base = redis.call('INCRBY', KEYS[5], n) - n
  for i = 1, n do
    local id = ARGV[8 + 2 * i]
    local slot = tonumber(ARGV[9 + 2 * i])
    local prefix = string.format('%012x', base + i)
    if redis.call('HSETNX', KEYS[4], id, prefix .. 'w0|||' .. ARGV[7]) == 1 then
      redis.call('ZADD', KEYS[3], slot, prefix .. id)
      written = written + 1
      if earliest == nil or slot < earliest then earliest = slot end
    end
  end
  if written > 0 then
    redis.call('HINCRBY', KEYS[6], 'enqueued', written)
    notice(ARGV[6], ARGV[5], earliest)
  end
end
if ARGV[8] ~= '0' and n > 0 then
  redis.call('HSET', KEYS[7], ARGV[1], ARGV[8] .. '|' .. ARGV[10])
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[9]), ARGV[1])
elseif ARGV[4] == '-1' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
end
return {now, 1, written}
