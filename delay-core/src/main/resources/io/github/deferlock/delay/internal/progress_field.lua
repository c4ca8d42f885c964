-- progress_field: where a job's progress (progress.lua) lives: a field of the queue's errors hash, 0xFF followed by
-- the job id. 0xFF never occurs in UTF-8 and job ids are valid UTF-8, so the field never equals a job id (the
-- last-error fields); keeping both in one hash lets every script that deletes a job's last error delete its
-- progress in the same HDEL, so jobs that never report progress pay no command for it.
-- Shared by the queue scripts (--@include progress_field.lua).

-- the progress field of job `id`
local function progressField(id)
  return '\255' .. id
end

-- `ids` followed by their progress fields, for one HDEL of both
local function progressToo(ids)
  local out = {}
  for k = 1, #ids do
    out[k] = ids[k]
    out[#ids + k] = progressField(ids[k])
  end
  return out
end
