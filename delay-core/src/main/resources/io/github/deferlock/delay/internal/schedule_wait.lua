-- schedule_wait: a fixed-delay schedule's wait for the job of its last fire. While it waits, the
-- schedule-running hash holds '<delay ms>|<job id>' under the schedule id (written by schedule_fire.lua), and the
-- schedule's score in schedule-next is the time a ticker looks at the job again (a look, not a fire). The job is
-- finished when its id is gone from the jobs hash (acked or cancelled) or its envelope is dead.
-- Shared by the schedule scripts (--@include schedule_wait.lua, after envelope.lua).

-- the delay (ms) and the job id of a schedule-running entry
local function waitSplit(entry)
  local bar = string.find(entry, '|', 1, true)
  return tonumber(string.sub(entry, 1, bar - 1)), string.sub(entry, bar + 1)
end

-- true when the job `id` is neither waiting nor in flight (gone, or dead)
local function waitJobFinished(jobsKey, id)
  local env = redis.call('HGET', jobsKey, id)
  return not env or envState(env) == 'x'
end
