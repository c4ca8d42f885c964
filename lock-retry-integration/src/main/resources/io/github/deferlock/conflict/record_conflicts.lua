-- Adds conflicts of one strategy to one minute's bucket of the conflicts view (docs/ops.md, "Conflict stats").
-- KEYS:    [1] the bucket <prefix>conflicts:<STRATEGY>:<epoch minute>, a zset: lock name -> conflicts
-- ARGV:    [1] the bucket's life in seconds, [2] its cap (members kept), [3..] pairs: lock name, conflicts
--          (at most 100 pairs a call)
-- Returns: the bucket's members after the call
-- Work per call: one ZINCRBY per pair, an EXPIRE, a ZCARD, and at most one ZREMRANGEBYRANK that removes at
-- most as many members as the call added (the least contended: the bucket is a bounded top-K).
for i = 3, #ARGV, 2 do
  redis.call('ZINCRBY', KEYS[1], ARGV[i + 1], ARGV[i])
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
local n = redis.call('ZCARD', KEYS[1])
local cap = tonumber(ARGV[2])
if n > cap then
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - cap - 1)
  n = cap
end
return n
