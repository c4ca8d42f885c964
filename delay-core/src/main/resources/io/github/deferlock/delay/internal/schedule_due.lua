-- schedule_due: the recurring schedules whose next slot is due by the server's clock, for a worker's schedule
-- ticker (read only). The caller plans the slots in Java and fires them with schedule_fire.lua.
--
-- KEYS[1] schedule-next zset (schedule id -> next slot, epoch ms)
-- KEYS[2] schedules hash (schedule id -> definition JSON)
-- ARGV[1] the most schedules to return
-- returns {now ms, the earliest next slot after now or -1, id 1, next ms 1, definition 1, id 2, ...};
--         a definition is '' when missing (removed between the two reads cannot happen in one script; kept for
--         safety)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[1]))
local later = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
local out = {now, later[2] and tonumber(later[2]) or -1}
for i = 1, #due, 2 do
  out[#out + 1] = due[i]
  out[#out + 1] = tonumber(due[i + 1])
  out[#out + 1] = redis.call('HGET', KEYS[2], due[i]) or ''
end
return out
