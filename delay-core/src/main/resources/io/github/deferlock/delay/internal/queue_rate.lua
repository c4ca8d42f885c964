-- queue_rate: the per-queue rate limit of claim.lua (DelayQueue.rateLimit), GCRA on the server's clock
-- (gcra.lua). The limit key holds '<rate> <interval in microseconds> <burst>' (rate_limit.lua writes it); absent,
-- the queue has no limit and this costs one GET per claim. The state key holds the theoretical arrival time.
--@include gcra.lua

-- How many of `wanted` jobs the limit lets this claim start at server time nowUs, and the limit's state for
-- queueRateSpent (nil when the queue has no limit).
local function queueRateAllowed(limitKey, stateKey, nowUs, wanted)
  local raw = redis.call('GET', limitKey)
  if not raw then return wanted, nil end
  local rate, intervalUs, burst = string.match(raw, '^(%d+) (%d+) (%d+)$')
  if not rate then error('key ' .. limitKey .. ' holds a value that is not a queue rate limit') end
  local limit = {period = tonumber(intervalUs) / tonumber(rate), burst = tonumber(burst)}
  local room, tat, cut = gcra_room(stateKey, nowUs, limit.period, limit.burst)
  limit.tat = tat
  limit.stateCut = cut
  limit.cut = room < wanted
  if room < wanted then return room, limit end
  return wanted, limit
end

-- Records the `started` jobs of this claim against the limit and returns `wake` (epoch ms, -1 none) moved to no
-- earlier than the next start the limit allows. A worker whose claim the limit cut sleeps a quarter of a burst
-- longer, (burst - 1) / 4 emission intervals, so that its next claim takes several slots at once instead of racing
-- the other workers for each single slot; the burst keeps the slots that open meanwhile, so the rate is kept as
-- long as some worker claims within the other three quarters (a worker late by more loses slots).
local function queueRateSpent(stateKey, nowUs, limit, started, wake)
  if not limit then return wake end
  local retry = gcra_spend(stateKey, nowUs, limit.period, limit.burst, limit.tat, started, limit.stateCut)
  if limit.cut then retry = retry + math.floor((limit.burst - 1) / 4) * limit.period end
  local slot = math.ceil((nowUs + retry) / 1000)
  if wake >= 0 and wake < slot then return slot end
  return wake
end
