-- notice: publishes a notice on a channel, with SPUBLISH on a Redis 7.0+ cluster (sharded pub/sub: the
-- channel carries its key's hash tag, so the notice stays in the key's shard) and PUBLISH elsewhere.
-- Shared by the lock and queue scripts (--@include notice.lua); see Topology.publishFlag.
local function notice(shardedFlag, channel, message)
  redis.call(shardedFlag == '1' and 'SPUBLISH' or 'PUBLISH', channel, message)
end
