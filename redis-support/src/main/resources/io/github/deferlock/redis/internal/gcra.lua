-- gcra: the generic cell rate algorithm (GCRA) on one string key, shared by the per-key rate limiter (lock-core
-- rate.lua) and the per-queue rate limit (delay-core claim.lua); see RateLimits.
-- The key holds the theoretical arrival time (TAT) in server microseconds, a decimal; absent means "now".
-- With emission interval T = interval / rate and tolerance tau = (burst - 1) * T, a start is allowed at server
-- time now when max(TAT, now) - now <= tau, and each start moves TAT on by T. So an idle limiter lets `burst`
-- start at once, the sustained rate is rate / interval, and a half-open window of one interval sees at most
-- rate + burst - 1 starts. The key expires at its TAT (from then on it restricts nothing), so an idle limiter
-- holds no memory. O(1): one GET, at most one SET.

-- The server time in microseconds.
local function gcra_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- The limiter's state at `key` at server time `now`: returns room, tat, cut: room is how many starts the limit
-- allows now (0 or more), tat the theoretical arrival time to spend from (gcra_spend), and cut true when the stored
-- TAT was further ahead than the current limit could have left (tau + period: the state of another, slower limit)
-- and was cut to that, so the newest limit applies at once (gcra_spend then stores the cut value even when no
-- start is taken). A value that is not a number is an error ('not a rate limiter state').
local function gcra_room(key, now, period, burst)
  local raw = redis.call('GET', key)
  local tat = now
  if raw then
    tat = tonumber(raw)
    if not tat then
      error('key ' .. key .. ' holds a value that is not a rate limiter state')
    end
    if tat < now then tat = now end
  end
  local tau = (burst - 1) * period
  local cut = false
  if tat > now + tau + period then
    tat = now + tau + period
    cut = true
  end
  -- starts that fit now: the k-th (k = 0, 1, ...) needs tat + k * period - now <= tau; the epsilon absorbs the
  -- rounding of a microsecond timestamp held in a double
  local room = math.floor((tau - (tat - now)) / period + 1e-6) + 1
  if room < 0 then room = 0 end
  return room, tat, cut
end

-- Records `taken` starts (0 or more) from `tat` (gcra_room's; `cut` as it returned) and returns the microseconds
-- from `now` until the next start is allowed (0 when one is allowed now). The key expires at the new TAT.
local function gcra_spend(key, now, period, burst, tat, taken, cut)
  if taken > 0 or cut then
    tat = tat + taken * period
    redis.call('SET', key, string.format('%.17g', tat), 'PX', math.floor((tat - now) / 1000) + 1)
  end
  local retry = tat - (burst - 1) * period - now
  if retry < 0 then retry = 0 end
  return math.ceil(retry)
end

-- Takes up to `want` starts at server time `now` (microseconds) from the limiter at `key`, with emission interval
-- `period` (microseconds, may have a fraction) and burst `burst`. Returns {taken, retry}: taken in [0, want], and
-- retry, the microseconds until the next start would be allowed (0 when one is allowed now after this call).
local function gcra_take(key, now, period, burst, want)
  local room, tat, cut = gcra_room(key, now, period, burst)
  local taken = want
  if room < taken then taken = room end
  return {taken, gcra_spend(key, now, period, burst, tat, taken, cut)}
end
