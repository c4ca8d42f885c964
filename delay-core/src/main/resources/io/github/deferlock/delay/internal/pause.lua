-- pause: pauses or resumes the queue. While the paused marker exists claim.lua claims nothing (it still takes
-- the acks riding along and returns expired in-flight jobs to due); enqueues and every other call go on.
--
-- KEYS[1] the paused marker (string: the server time it was paused, epoch ms; no TTL)
-- ARGV[1] '1' to pause, '0' to resume
-- ARGV[2] wake channel; a resume publishes on it (message 'resume'), so idle workers claim at once
-- ARGV[3] '1' to publish with SPUBLISH (Redis 7.0+ cluster), else PUBLISH
-- returns 1 when the call changed the state (paused a running queue, resumed a paused one), else 0
--@include notice.lua
if ARGV[1] == '1' then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  return redis.call('SET', KEYS[1], now, 'NX') and 1 or 0
end
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
notice(ARGV[3], ARGV[2], 'resume')
return 1
