-- rate_limit: sets or removes the queue's rate limit (DelayQueue.rateLimit), which claim.lua applies
-- (queue_rate.lua). A change publishes a wake notice (message 'rate'), so workers that sleep until the slot
-- of the old limit claim at once under the new one.
--
-- KEYS[1] the rate limit key (string '<rate> <interval in microseconds> <burst>'; no TTL)
-- KEYS[2] the rate state key (GCRA theoretical arrival time; deleted with the limit)
-- ARGV[1] the new limit in that form, or '' to remove it
-- ARGV[2] wake channel
-- ARGV[3] '1' to publish with SPUBLISH (Redis 7.0+ cluster), else PUBLISH
-- returns 1 when the call changed the limit, else 0
--@include notice.lua
local old = redis.call('GET', KEYS[1])
if ARGV[1] == '' then
  if not old then return 0 end
  redis.call('DEL', KEYS[1], KEYS[2])
elseif old == ARGV[1] then
  return 0
else
  redis.call('SET', KEYS[1], ARGV[1])
end
notice(ARGV[3], ARGV[2], 'rate')
return 1
