-- schedule_remove: deletes one recurring schedule; jobs it fired stay in the queue.
--
-- KEYS[1] schedule-next zset (schedule id -> next slot, epoch ms)
-- KEYS[2] schedules hash (schedule id -> definition JSON)
-- ARGV[1] schedule id
-- returns 1 when it existed, else 0
redis.call('ZREM', KEYS[1], ARGV[1])
return redis.call('HDEL', KEYS[2], ARGV[1])
