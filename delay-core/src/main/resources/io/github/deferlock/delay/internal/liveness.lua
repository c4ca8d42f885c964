-- liveness: the queue's liveness mark and its hold (docs/queue-keys.md, `alive`; docs/delay-queue.md, "When
-- Redis stops"). The server's clock runs on while the server is frozen (SIGSTOP, a VM stall) or unreachable to
-- every worker, so the visibility deadlines of running jobs pass while no worker can renew or ack them; a claim
-- that runs first after such a gap would return them to due, charging an attempt for an infrastructure failure.
--
-- The mark is a hash: field 'seen' is the server time (ms) of the last call of a DelayQueueWorker (its claims and
-- its renewals), written only when it is older than a sixteenth of the visibility timeout, so a busy or idle
-- worker writes it a few times per visibility timeout, not per call. A worker's claim that finds 'seen' older
-- than half the visibility timeout has found a gap: no worker call reached the server for that long (a worker
-- renews every third of the visibility timeout and an idle one claims every fallback poll). It starts a hold:
-- fields 'from' (the last call before the gap) and 'until' (now + the visibility timeout). While a hold lasts,
-- claims (a worker's or not) return only the in-flight jobs whose deadline is at most 'from'; the others wait
-- for the hold's end, so the renewals and acks of the workers that ran them across the gap land first. A
-- renewal in a gap does not refresh 'seen' (the next claim must still find the gap). Shared by claim.lua and
-- extend.lua (--@include liveness.lua).

-- the mark at `key`: {seen, from, until} as numbers (nil when absent)
local function aliveRead(key)
  local v = redis.call('HMGET', key, 'seen', 'from', 'until')
  return {tonumber(v[1]), tonumber(v[2]), tonumber(v[3])}
end

-- true when 'seen' should be refreshed at `now` (ms) by a worker's call with visibility timeout `vis` (ms)
local function aliveStale(mark, now, vis)
  return not mark[1] or now - mark[1] >= vis / 16
end

-- true when no worker call reached the server for longer than half of `vis` before `now`
local function aliveGap(mark, now, vis)
  return mark[1] ~= nil and now - mark[1] > vis / 2
end

-- writes `fields` (a flat field, value list) into the mark, after the script's other writes and with pcall: at
-- maxmemory with noeviction the write of an idle call (its first) is refused, and that call goes on without it
local function aliveWrite(key, fields)
  if fields then redis.pcall('HSET', key, unpack(fields)) end
end
