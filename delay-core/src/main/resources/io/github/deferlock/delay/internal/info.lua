-- info: reads one job (read only).
--
-- KEYS[1] jobs hash, KEYS[2] due zset (of level 0, levels.lua), KEYS[3] in-flight zset, KEYS[4] dead zset,
-- KEYS[5] errors hash (the last error, and the progress under progress_field.lua's field)
-- ARGV[1] job id
-- returns {} when there is no such job, else {envelope, last error ("" if none), score} where score is
--         the due time (state w), the visibility deadline (state f) or the time of death (state x), epoch ms;
--         then the progress value (progress.lua) or "" when none, then 1 when the job waits held back for its
--         concurrency key (keylimits.lua; score is then its due time), else 0
--@include envelope.lua
--@include levels.lua
--@include keylimits.lua
--@include progress_field.lua
local id = ARGV[1]
local env = redis.call('HGET', KEYS[1], id)
if not env then return {} end
local member = envMember(env, id)
local state = envState(env)
local key = levelKey(KEYS[2], envLevel(env))
if state == 'f' then key = KEYS[3] elseif state == 'x' then key = KEYS[4] end
local score = redis.call('ZSCORE', key, member)
local held = 0
if not score and state == 'w' then
  local ck = envKey(env)
  if ck then
    score = keyHeldDue(queuePrefix(KEYS[1]), ck, member)
    if score then held = 1 end
  end
end
local extra = redis.call('HMGET', KEYS[5], id, progressField(id))
return {env, extra[1] or '', score and tonumber(score) or -1, extra[2] or '', held}
