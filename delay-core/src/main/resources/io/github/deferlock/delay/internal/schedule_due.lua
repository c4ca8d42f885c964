-- schedule_due: the recurring schedules whose next slot is due by the server's clock, for a worker's schedule
-- ticker. The caller plans the slots in Java and fires them with schedule_fire.lua.
--
-- A due fixed-delay schedule that waits for the job of its last fire (schedule_wait.lua) is not returned: its
-- score was the time to look at that job. If the job is still waiting or in flight, the next look is ARGV[2] ms
-- from now; if it finished, the wait ends and the schedule's next fire is its delay from now. These are the only
-- writes (so the script runs on the primary); a schedule without such an entry costs one HGET more.
--
-- KEYS[1] schedule-next zset (schedule id -> next slot, epoch ms)
-- KEYS[2] schedules hash (schedule id -> definition JSON)
-- KEYS[3] schedule-running hash (schedule id -> '<delay ms>|<job id>'), fixed-delay schedules only
-- KEYS[4] jobs hash
-- ARGV[1] the most schedules to look at
-- ARGV[2] how long until a waiting schedule looks at its job again, ms
-- returns {now ms, the earliest next slot after now or -1, how many due schedules were looked at, id 1,
--         next ms 1, definition 1, id 2, ...}; a definition is '' when missing (kept for safety)
--@include envelope.lua
--@include schedule_wait.lua
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[1]))
local rows = {}
for i = 1, #due, 2 do
  local entry = redis.call('HGET', KEYS[3], due[i])
  if entry then
    local delay, job = waitSplit(entry)
    if waitJobFinished(KEYS[4], job) then
      redis.call('HDEL', KEYS[3], due[i])
      redis.call('ZADD', KEYS[1], now + delay, due[i])
    else
      redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), due[i])
    end
  else
    rows[#rows + 1] = due[i]
    rows[#rows + 1] = tonumber(due[i + 1])
    rows[#rows + 1] = redis.call('HGET', KEYS[2], due[i]) or ''
  end
end
local later = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
local out = {now, later[2] and tonumber(later[2]) or -1, #due / 2}
for i = 1, #rows do
  out[#out + 1] = rows[i]
end
return out
