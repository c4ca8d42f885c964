-- Renews a batch of permits in one round trip (permits.lua): for each live holder, sets its lease deadline to
-- now + ARGV[1]. On Redis Cluster a batch only holds keys of one slot. Also sets a permit's lease
-- (LockLease.extend, releaseAfter). Safe to resend.
--
-- KEYS[2i-1]    holders of permit i      p{e}
-- KEYS[2i]      holder records of i      p{e}:permits
-- ARGV[1]       lease in milliseconds
-- ARGV[i+1]     the token of permit i
--
-- Returns an array of n integers: 1 when permit i was live and its lease was set; 0 when it is gone or its
--         lease had run out (that permit is lost; nothing changed).
redis.replicate_commands() -- TIME before writes: replicate effects (the default since Redis 5; kept for 6.2)
--@include permits.lua

local now = nowMillis()
local lease = tonumber(ARGV[1])
local renewed = {}
for i = 1, #ARGV - 1 do
  local holders, records, token = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
  local score = redis.pcall('ZSCORE', holders, token)
  if type(score) == 'string' and tonumber(score) > now then
    redis.call('ZADD', holders, now + lease, token)
    keepAlive(holders, records, lease)
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
