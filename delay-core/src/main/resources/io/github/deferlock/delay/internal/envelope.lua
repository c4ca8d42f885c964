-- envelope: reading a job envelope, the value of the jobs hash (one field per job id):
--   <seq: 12 hex digits><state: w|f|x><attempts>|<receipt>|<due ms>|<payload JSON>
-- state w = waiting in the due zset, f = in flight, x = dead. A dead envelope's receipt field holds the cause
-- (a attempts used, t visibility timeout, u undecodable, d deadLetter; empty before causes were stored). The
-- payload field may start with the job's headers (0x1E, see HeaderCodec); scripts copy it whole, never parse it.
-- Shared by the queue scripts
-- (--@include envelope.lua); enqueue.lua documents the layout in full.

-- the member of job `id` in the due, in-flight and dead zsets: <seq><id>
local function envMember(env, id)
  return string.sub(env, 1, 12) .. id
end

-- the state letter: w, f or x
local function envState(env)
  return string.sub(env, 13, 13)
end

-- attempts, receipt, the index of the third '|' (the payload follows it), and the due ms field
local function envSplit(env)
  local i1 = string.find(env, '|', 14, true)
  local i2 = string.find(env, '|', i1 + 1, true)
  local i3 = string.find(env, '|', i2 + 1, true)
  return tonumber(string.sub(env, 14, i1 - 1)), string.sub(env, i1 + 1, i2 - 1), i3, string.sub(env, i2 + 1, i3 - 1)
end

-- the receipt field alone
local function envReceipt(env)
  local i1 = string.find(env, '|', 14, true)
  return string.sub(env, i1 + 1, string.find(env, '|', i1 + 1, true) - 1)
end

-- the envelope in `state` with `attempts`, `field` (or nothing) in the receipt field and no due field,
-- keeping the payload after index i3
local function envReset(env, state, attempts, i3, field)
  return string.sub(env, 1, 12) .. state .. attempts .. '|' .. (field or '') .. '|' .. string.sub(env, i3)
end
