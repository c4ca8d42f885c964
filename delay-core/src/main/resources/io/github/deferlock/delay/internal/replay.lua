-- replay: the replay record of one write call (docs/queue-keys.md, "Replay records"). The client names each
-- call by a slot and a call id (ReplaySlots): the record lives at the slot's key, under the queue's tag, and
-- holds the id of the call that wrote it, so the slot's next call overwrites it (memory is bounded by the
-- calls a client runs at once, not by how many it makes). A call that finds its own id in the record already
-- ran (this is its resend after a lost reply), and answers with the recorded reply instead of running again,
-- so a resend is told what its own first try did, never "stale" or "duplicate" about it.
-- Shared by the queue's write scripts (--@include replay.lua): claim, ack, nack (also deadLetter), reschedule
-- (also give back), cancel, enqueue. `arg` is the call's replay argument, '<ttl ms> <call id>': the record is
-- '<call id> ' followed by cmsgpack of the reply and lives for ttl ms.

-- the recorded reply of the call `arg` names, when the record at `key` is that call's; else nil
local function replayed(key, arg)
  local record = redis.call('GET', key)
  if not record then return nil end
  local head = string.match(arg, ' .*$')
  if not head then return nil end
  head = string.sub(head, 2) .. ' '
  if string.sub(record, 1, #head) ~= head then return nil end
  return cmsgpack.unpack(string.sub(record, #head + 1))
end

-- records `reply` as the reply of the call `arg` names, at `key`, and returns it
local function recorded(key, arg, reply)
  local ttl, call = string.match(arg, '^(%d+) (.*)$')
  redis.call('SET', key, call .. ' ' .. cmsgpack.pack(reply), 'PX', ttl)
  return reply
end
