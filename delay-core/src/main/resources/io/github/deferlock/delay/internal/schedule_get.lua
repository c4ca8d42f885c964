-- schedule_get: one recurring schedule as an upsert reads it, with the server's now (read only).
--
-- KEYS[1] schedule-next zset (schedule id -> next slot, epoch ms)
-- KEYS[2] schedules hash (schedule id -> definition JSON)
-- KEYS[3] schedule-running hash (schedule id -> '<delay ms>|<job id>', schedule_wait.lua)
-- ARGV[1] schedule id
-- returns {now ms, definition or '', next slot ms or -1, the schedule-running entry or ''}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local def = redis.call('HGET', KEYS[2], ARGV[1]) or ''
local next = redis.call('ZSCORE', KEYS[1], ARGV[1])
return {now, def, next and tonumber(next) or -1, redis.call('HGET', KEYS[3], ARGV[1]) or ''}
