package io.github.deferlock.lock.internal;

import java.util.Optional;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What lock-core needs from a cluster client beyond {@link UnifiedJedis}: a pooled connection to the master
 * of a slot (for {@code SSUBSCRIBE}) and a topology refresh. Immutable; threadsafe.
 */
final class ClusterAccess {
    private final RedisClusterClient redis;

    private ClusterAccess(RedisClusterClient redis) {
        this.redis = redis;
    }

    /**
     * The access of a {@link RedisClusterClient}; empty for other clients (the deprecated {@code JedisCluster}
     * gets plain pub/sub, which a cluster forwards to every node).
     */
    static Optional<ClusterAccess> of(UnifiedJedis redis) {
        return redis instanceof RedisClusterClient c ? Optional.of(new ClusterAccess(c)) : Optional.empty();
    }

    /** A pooled connection to the master serving {@code slot}; the caller closes it (back to the pool). */
    Connection connectionFromSlot(int slot) {
        return redis.getConnectionFromSlot(slot);
    }

    /** Asks the client to reload the slot map. */
    void refresh() {
        redis.refreshClusterTopology();
    }

    /**
     * Whether the cluster has sharded pub/sub (Redis 7.0+): an {@code SPUBLISH} on a probe channel either
     * answers (yes) or is an unknown command (no).
     */
    boolean shardedPubSub() {
        try {
            redis.spublish("deferlock:probe", "");
            return true;
        } catch (JedisDataException e) {
            String msg = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
            if (msg.contains("unknown command")) {
                return false;
            }
            throw e;
        }
    }
}
