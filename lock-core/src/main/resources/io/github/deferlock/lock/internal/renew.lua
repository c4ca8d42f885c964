-- Renews a batch of locks in one round trip: compare-and-PEXPIRE for each key. On Redis Cluster a batch
-- only holds keys of one slot.
--
-- KEYS[1..n]     lock keys
-- ARGV[1]        lease in milliseconds
-- ARGV[2..n+1]   the holders' tokens, ARGV[i+1] for KEYS[i]
--
-- A held value may carry a '+' after the token (another process waits; see acquire.lua).
-- Returns an array of n integers: 1 when KEYS[i] held its token and its TTL was reset to the lease;
--         0 when it is gone or holds another value (that hold is lost; nothing changed).
local renewed = {}
for i = 1, #KEYS do
  local held = redis.pcall('GET', KEYS[i])
  if type(held) == 'string' and string.sub(held, 1, #ARGV[i + 1]) == ARGV[i + 1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
