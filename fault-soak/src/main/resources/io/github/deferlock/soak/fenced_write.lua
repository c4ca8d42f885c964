-- The fenced resource of the soak: accepts a write when its token is above every token accepted before,
-- or equal to the last accepted one from the same hold; logs every judgement in the order it made them.
--
-- KEYS[1] the resource's hash (fields: token, hold)
-- KEYS[2] the event list the checker reads
-- ARGV[1] the fencing token (a decimal integer without leading zeros)
-- ARGV[2] the hold id
-- ARGV[3] the resource name (for the log line)
-- ARGV[4] when the holder sent the write, epoch ms
-- ARGV[5] 1 when the holder's isHeld() said it still held the lock, 0 for a write sent after it knew it lost it
--
-- Returns 1 when accepted, 0 when rejected.
local last = redis.call('HGET', KEYS[1], 'token')
local owner = redis.call('HGET', KEYS[1], 'hold')
local token = ARGV[1]
local accept
if not last then
  accept = true
elseif #token ~= #last then
  accept = #token > #last
elseif token ~= last then
  accept = token > last
else
  accept = owner == ARGV[2]
end
local flag = 0
if accept then
  redis.call('HSET', KEYS[1], 'token', token, 'hold', ARGV[2])
  flag = 1
end
redis.call('RPUSH', KEYS[2], 'WRITE ' .. ARGV[3] .. ' ' .. token .. ' ' .. ARGV[2] .. ' ' .. ARGV[4] .. ' ' .. flag .. ' ' .. ARGV[5])
return flag
