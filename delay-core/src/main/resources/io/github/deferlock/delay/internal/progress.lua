-- progress: stores a running job's progress, reported by its handler (Job.progress). One HGET and one HSET of a
-- short value; the client rate-limits the calls per job.
--
-- KEYS[1] jobs hash, KEYS[2] errors hash: the progress is its field 0xFF + job id (progress_field.lua), deleted
--         with the job's last error by the same HDEL (ack, claim's acks, cancel, the purge of its dead letter)
-- ARGV[1] job id, ARGV[2] receipt of the claim, ARGV[3] percent (0..100), ARGV[4] note (may be empty)
-- returns 1 stored, 0 the receipt is stale (the job is no longer in flight under this claim): nothing written
--
-- The value is <attempt>|<server time ms>|<percent>|<note>: the delivery that reported it, so a retried job
-- shows the progress its last run reached until the new run reports its own. Idempotent under resend.
--@include envelope.lua
--@include progress_field.lua
if redis.replicate_commands then redis.replicate_commands() end
local env = redis.call('HGET', KEYS[1], ARGV[1])
if not env or envState(env) ~= 'f' or envReceipt(env) ~= ARGV[2] then return 0 end
local attempts = envSplit(env)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[2], progressField(ARGV[1]), attempts .. '|' .. now .. '|' .. ARGV[3] .. '|' .. ARGV[4])
return 1
