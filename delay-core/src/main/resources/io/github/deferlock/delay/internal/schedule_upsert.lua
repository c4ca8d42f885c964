-- schedule_upsert: writes one recurring schedule if it is still as the client read it (schedule_get.lua): a
-- compare-and-set on its definition and next slot, so an upsert never undoes a fire that happened meanwhile.
--
-- KEYS[1] schedule-next zset (schedule id -> next slot, epoch ms)
-- KEYS[2] schedules hash (schedule id -> definition JSON)
-- KEYS[3] schedule-running hash (schedule id -> '<delay ms>|<job id>', schedule_wait.lua)
-- ARGV[1] schedule id
-- ARGV[2] sha1 (hex) of the definition read, '' when there was none
-- ARGV[3] the next slot read, '-1' when none
-- ARGV[4] the new definition
-- ARGV[5] the new next slot, '-1' when none
-- ARGV[6] the most schedules the queue may hold
-- ARGV[7] the schedule-wake channel: published with the new next slot when written, so the schedule tickers of
--         other processes look at once; ARGV[8] '1' to SPUBLISH, else PUBLISH
-- ARGV[9] the new definition's fixed delay, ms, or '0' when it is not a fixed delay. A schedule that waits for
--         the job of its last fire (schedule_wait.lua) goes on waiting when the new definition is a fixed delay
--         too (with the new delay; its score, the time of the next look, is kept and ARGV[5] is ignored), and
--         stops waiting otherwise
-- returns {1, the job id it waits for or ''} written, {0, ''} changed since it was read (read again), {-2, ''}
--         the queue holds ARGV[6] schedules already
--@include notice.lua
local cur = redis.call('HGET', KEYS[2], ARGV[1])
if cur then
  if redis.sha1hex(cur) ~= ARGV[2] then return {0, ''} end
elseif ARGV[2] ~= '' then
  return {0, ''}
end
local n = redis.call('ZSCORE', KEYS[1], ARGV[1])
if (n and tonumber(n) or -1) ~= tonumber(ARGV[3]) then return {0, ''} end
if not cur and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[6]) then return {-2, ''} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
local waiting = redis.call('HGET', KEYS[3], ARGV[1])
if waiting then
  local job = string.sub(waiting, string.find(waiting, '|', 1, true) + 1)
  if ARGV[9] ~= '0' and n then
    redis.call('HSET', KEYS[3], ARGV[1], ARGV[9] .. '|' .. job)
    return {1, job}
  end
  redis.call('HDEL', KEYS[3], ARGV[1])
end
if ARGV[5] == '-1' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[5], ARGV[1])
end
notice(ARGV[8], ARGV[7], ARGV[5])
return {1, ''}
