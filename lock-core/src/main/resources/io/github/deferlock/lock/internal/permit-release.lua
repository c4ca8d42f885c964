-- Releases a permit (permits.lua): removes the holder's token if it is live, records the release briefly so a
-- resent release recognises its own success, and tells the waiter that became eligible.
--
-- KEYS[1]  holders               p{e}
-- KEYS[2]  holder records        p{e}:permits
-- KEYS[3]  release records       p{e}:released-permits (zset: token -> release time, server ms; kept ARGV[4] ms)
-- KEYS[4]  waiter queue          p{e}:waiters
-- KEYS[5]  waiter deadlines      p{e}:waiter-deadlines
-- ARGV[1]  the holder's token
-- ARGV[2]  limit
-- ARGV[3]  waiter channel prefix p{e}:released:
-- ARGV[4]  how long release records live, in ms
-- ARGV[5]  '1' to publish with SPUBLISH (Redis 7.0+ cluster), else PUBLISH
--
-- Returns 1 when the token was a live holder and is released; 3 when its release already ran (a resend);
--         0 when it is not a live holder and no release is recorded (the permit was lost; an expired entry
--         of it is removed).
redis.replicate_commands() -- TIME before writes: replicate effects (the default since Redis 5; kept for 6.2)
--@include permits.lua

local holders, records, released, waiters, deadlines = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local token = ARGV[1]
local now = nowMillis()
local score = redis.pcall('ZSCORE', holders, token)
if type(score) == 'string' then
  redis.call('ZREM', holders, token)
  redis.call('HDEL', records, 't:' .. token)
  if tonumber(score) > now then
    local keep = tonumber(ARGV[4])
    redis.call('ZADD', released, now, token)
    redis.call('ZREMRANGEBYSCORE', released, '-inf', now - keep)
    redis.call('PEXPIRE', released, keep)
    if redis.call('EXISTS', holders) == 0 then
      redis.call('DEL', records)
    end
    noticeEligible(holders, waiters, deadlines, tonumber(ARGV[2]), now, ARGV[3], ARGV[5])
    return 1
  end
  return 0
end
if redis.call('ZSCORE', released, token) then
  return 3
end
return 0
