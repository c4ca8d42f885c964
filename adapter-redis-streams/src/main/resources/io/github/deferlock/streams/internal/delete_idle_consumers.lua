-- Deletes consumers of a group that have no pending entries and have been idle at least a threshold, in one
-- atomic step: a consumer cannot read an entry between the check and the delete, so no pending entry is ever
-- dropped with its consumer.
--
-- KEYS[1] the stream
-- ARGV[1] the group
-- ARGV[2] the idle threshold in ms (a consumer idle at least this long qualifies)
-- ARGV[3] a consumer name to check regardless of idle time ("" for none): the caller's own, on close
--
-- Returns the number of consumers deleted (0 when the stream or the group does not exist).
if redis.call('EXISTS', KEYS[1]) == 0 then
    return 0
end
local ok, consumers = pcall(redis.call, 'XINFO', 'CONSUMERS', KEYS[1], ARGV[1])
if not ok then
    return 0
end
local threshold = tonumber(ARGV[2])
local deleted = 0
for _, c in ipairs(consumers) do
    local name, pending, idle
    for i = 1, #c, 2 do
        if c[i] == 'name' then
            name = c[i + 1]
        elseif c[i] == 'pending' then
            pending = c[i + 1]
        elseif c[i] == 'idle' then
            idle = c[i + 1]
        end
    end
    if pending == 0 and (name == ARGV[3] or idle >= threshold) then
        redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], name)
        deleted = deleted + 1
    end
end
return deleted
