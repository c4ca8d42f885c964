-- replay: the replay record of one write call (docs/queue-keys.md, "Replay records"). The client names each
-- call by a key under the queue's tag (a fresh token per call, the same on every resend of that call after a
-- lost reply); a call that finds its record already ran, and answers with the recorded reply instead of
-- running again, so a resend is told what its own first try did, never "stale" or "duplicate" about it.
-- Shared by the queue's write scripts (--@include replay.lua): claim, ack, nack (also deadLetter), reschedule
-- (also give back), cancel, enqueue. The record is cmsgpack of the reply and lives for the call's TTL (ms).

-- the recorded reply of the call named by `key`, or nil when that call has not run
local function replayed(key)
  local record = redis.call('GET', key)
  if record then return cmsgpack.unpack(record) end
  return nil
end

-- records `reply` as the reply of the call named by `key` for `ttl` ms, and returns it
local function recorded(key, ttl, reply)
  redis.call('SET', key, cmsgpack.pack(reply), 'PX', ttl)
  return reply
end
