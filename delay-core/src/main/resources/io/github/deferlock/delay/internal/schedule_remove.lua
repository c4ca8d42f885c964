-- schedule_remove: deletes one recurring schedule (and a fixed-delay schedule's wait for its job); jobs it fired
-- stay in the queue.
--
-- KEYS[1] schedule-next zset (schedule id -> next slot, epoch ms)
-- KEYS[2] schedules hash (schedule id -> definition JSON)
-- KEYS[3] schedule-running hash (schedule id -> '<delay ms>|<job id>', schedule_wait.lua)
-- ARGV[1] schedule id
-- returns 1 when it existed, else 0
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return redis.call('HDEL', KEYS[2], ARGV[1])
