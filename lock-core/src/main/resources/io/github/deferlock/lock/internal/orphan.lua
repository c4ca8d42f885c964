-- Looks after a key's parked work for the orphan sweep of a process that parked or drained it
-- (lock-retry-integration's OrphanSweep; docs/lock-keys.md, "Parked work"): is anything parked, and does a
-- drain token drain it? Parked work with no drainer record has no job that will run it (its token was lost,
-- dead-lettered, or ended before a late park.lua made it the drainer). Given a token, makes it the drainer of
-- such a key, as park.lua does: the sweep enqueued that token's job first, so a crash in between leaves a
-- token that takes the key at its first drain.lua.
--
-- KEYS[1]  parked FIFO           p{e}:parked
-- KEYS[2]  drainer               p{e}:drainer
-- ARGV[1]  the drain token to make the drainer, or '' to look only
-- ARGV[2]  the drainer's lease in ms, when ARGV[1] becomes the drainer
--
-- Returns 0 when nothing is parked (nothing changed);
--         1 when ARGV[1] is the key's drainer after the call (set now, or by a resend or a drain.lua);
--         2 when another drain token drains the key (a live drainer record; nothing changed);
--         3 when items are parked and the key has no drainer record (only when ARGV[1] is '').
if redis.call('LLEN', KEYS[1]) == 0 then
  return 0
end
if ARGV[1] == '' then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    return 2
  end
  return 3
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  return 1
end
return 2
