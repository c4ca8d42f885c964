package io.github.deferlock.redis.internal;

import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * What the deferlock modules need to know about one client, decided once: whether it talks to a cluster
 * (keys group by slot), whether it can route to a slot's master itself ({@link RedisClusterClient}: a
 * connection for a slot, a slot map refresh), and whether notices go by {@code SPUBLISH} (a Redis 7.0+
 * cluster: sharded pub/sub) or {@code PUBLISH}. The deprecated {@code JedisCluster} is a cluster without
 * routing: it gets plain pub/sub, which a cluster forwards to every node. Threadsafe; the pub/sub answer is
 * asked of the cluster on first need and kept once definite.
 */
public final class Topology {
    private static final Logger LOG = LoggerFactory.getLogger(Topology.class);
    private static final byte[] SPUBLISH = {'1'};
    private static final byte[] PUBLISH = {'0'};

    private final UnifiedJedis redis;
    private final RedisClusterClient routing; // null unless the client routes by slot
    private final boolean cluster;
    private volatile Boolean sharded; // null until the cluster answered

    private Topology(UnifiedJedis redis) {
        this.redis = redis;
        this.routing = redis instanceof RedisClusterClient c ? c : null;
        @SuppressWarnings("deprecation")
        boolean legacyCluster = redis instanceof JedisCluster;
        this.cluster = routing != null || legacyCluster;
        this.sharded = routing == null ? Boolean.FALSE : null;
    }

    /** The topology of {@code redis}. Build one per client owner and keep it: it caches what it learns. */
    public static Topology of(UnifiedJedis redis) {
        return new Topology(Require.notNull("redis", redis));
    }

    /** The client. */
    public UnifiedJedis redis() {
        return redis;
    }

    /** Whether the client talks to a cluster: a script's keys must share a slot, batches go per slot. */
    public boolean isCluster() {
        return cluster;
    }

    /** The slot of {@code key} on a cluster, 0 elsewhere (everything is one group). */
    public int slotOf(byte[] key) {
        return cluster ? JedisClusterCRC16.getSlot(key) : 0;
    }

    /** Whether the client routes by slot itself: {@link #connectionForSlot} and {@link #refreshSlots} work. */
    public boolean routesBySlot() {
        return routing != null;
    }

    /**
     * A pooled connection to the master serving {@code slot}; the caller closes it (back to the pool).
     *
     * @throws IllegalStateException when the client does not route by slot ({@link #routesBySlot()})
     */
    public Connection connectionForSlot(int slot) {
        if (routing == null) {
            throw new IllegalStateException("the client " + redis.getClass().getName() + " does not route by slot");
        }
        return routing.getConnectionFromSlot(slot);
    }

    /**
     * A connection of the client's own pool that the caller holds until it closes it: a {@link RedisClient}'s
     * pool, or the pool a {@link RedisSentinelClient} keeps for the current master (after a failover, the new
     * master's). A subscription uses it so that it can end it itself: a connection whose subscription ended
     * by an error may still be subscribed, and is closed as broken instead of handed back. Null when the client
     * does not show its pool (the deprecated {@code JedisCluster}, another {@link UnifiedJedis}): subscribe
     * through {@link UnifiedJedis#subscribe} then.
     */
    public Connection ownConnection() {
        if (redis instanceof RedisClient c) {
            return c.getPool().getResource();
        }
        if (redis instanceof RedisSentinelClient s) {
            return s.getPrimaryNodesConnectionMap().values().iterator().next().getResource();
        }
        return null;
    }

    /** Asks a slot-routing client to reload the slot map; nothing for other clients. */
    public void refreshSlots() {
        if (routing != null) {
            routing.refreshClusterTopology();
        }
    }

    /**
     * Whether notices go by sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}): true on a slot-routing
     * client of a Redis 7.0+ cluster. Empty when the cluster cannot say yet (it is asked again next time);
     * an {@code SPUBLISH} on a probe channel either answers (yes) or is an unknown command (no).
     */
    public Optional<Boolean> shardedPubSub() {
        Boolean known = sharded;
        if (known != null) {
            return Optional.of(known);
        }
        try {
            routing.spublish("deferlock:probe", "");
            known = true;
        } catch (JedisDataException e) {
            if (!String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("unknown command")) {
                LOG.debug("cannot tell whether the cluster has sharded pub/sub yet: {}", e.toString());
                return Optional.empty();
            }
            known = false;
        } catch (JedisException e) {
            LOG.debug("cannot tell whether the cluster has sharded pub/sub yet: {}", e.toString());
            return Optional.empty();
        }
        sharded = known;
        return Optional.of(known);
    }

    /**
     * The scripts' publish flag: {@code "1"} for {@code SPUBLISH}, {@code "0"} for {@code PUBLISH} (also
     * while a cluster cannot say yet: notices then go plainly and the question is asked again next time).
     */
    public byte[] publishFlag() {
        return shardedPubSub().orElse(false) ? SPUBLISH.clone() : PUBLISH.clone();
    }

    @Override
    public String toString() {
        return "Topology[" + redis.getClass().getSimpleName() + (cluster ? ", cluster" : "")
                + (routesBySlot() ? ", routes by slot" : "") + ", sharded pub/sub " + sharded + "]";
    }
}
