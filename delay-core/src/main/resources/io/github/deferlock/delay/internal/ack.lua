-- ack: deletes in-flight jobs whose receipts match (their handlers finished them). One call acks a batch:
-- one HMGET for the envelopes, then one variadic ZREM and HDELs for all that match.
--
-- KEYS[1] jobs hash, KEYS[2] in-flight zset, KEYS[3] errors hash (the last error and the progress of each job:
--         both deleted, in one HDEL),
-- KEYS[4] the replay record of this call (replay.lua: its slot's record; see ARGV[1])
-- KEYS[5] stats hash: field 'acked' counts the jobs deleted here (one HINCRBY per call)
-- ARGV[1] the replay argument, '<ttl ms> <call id>' (replay.lua)
-- ARGV[2] '1' to publish with SPUBLISH (Redis 7.0+ cluster), else PUBLISH: the wake notice when an acked job with
--         a concurrency key lets held jobs of its key back to due (keylimits.lua; on the channel <prefix>wake)
-- ARGV[3..] pairs: job id 1, receipt 1, job id 2, receipt 2, ... (at most 500 pairs per call)
-- returns {result 1, result 2, ...} in pair order: 1 when the job was deleted, 0 when the receipt is stale
--         (the job was returned to due, redelivered, settled or cancelled since that claim), the job does
--         not exist, or the same id came earlier in this call
--
-- Replay: the client names each call by a slot (KEYS[4]) and a call id (the same when it resends the call); when
-- the record holds this call's id the call already ran, and its recorded results are returned, so a resent ack is told
-- "acked", not "stale", about its own earlier success.
--@include envelope.lua
--@include levels.lua
--@include keylimits.lua
--@include notice.lua
--@include progress_field.lua
--@include replay.lua
if redis.replicate_commands then redis.replicate_commands() end
local earlier = replayed(KEYS[4], ARGV[1])
if earlier then return earlier end
local n = (#ARGV - 2) / 2
local ids = {}
for k = 1, n do ids[k] = ARGV[2 * k + 1] end
local envs = redis.call('HMGET', KEYS[1], unpack(ids))
local out, members, done = {}, {}, {}
local acked, left = {}, keyLeaving()
for k = 1, n do
  local id, env, ok = ids[k], envs[k], 0
  if env and not done[id] and envState(env) == 'f' and envReceipt(env) == ARGV[2 * k + 2] then
    ok = 1
    done[id] = true
    members[#members + 1] = envMember(env, id)
    acked[#acked + 1] = id
    local key = envKey(env)
    if key then keyLeft(left, key, true) end
  end
  out[k] = ok
end
if #acked > 0 then
  redis.call('ZREM', KEYS[2], unpack(members))
  redis.call('HDEL', KEYS[1], unpack(acked))
  redis.call('HDEL', KEYS[3], unpack(progressToo(acked)))
  redis.call('HINCRBY', KEYS[5], 'acked', #acked)
end
if #left.keys > 0 then
  local qp = queuePrefix(KEYS[1])
  local earliest = keysRelease(qp, left)
  if earliest then notice(ARGV[2], qp .. 'wake', earliest) end
end
return recorded(KEYS[4], ARGV[1], out)
