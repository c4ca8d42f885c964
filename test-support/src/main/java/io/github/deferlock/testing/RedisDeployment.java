package io.github.deferlock.testing;

import java.util.List;
import java.util.Objects;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * One of the three Redis topologies a contract test runs against — {@link #standalone()}, {@link #cluster()}
 * or {@link #sentinel()} — behind one face: new clients, the node that serves a key, a flush. Lets a contract
 * be written once and run on each (an abstract test class per contract, one {@code @Nested} subclass per
 * topology).
 *
 * <p>Instances are threadsafe.
 */
public final class RedisDeployment implements AutoCloseable {

    /** The topology. */
    public enum Kind {
        /** One {@link RedisServer}, clients are {@code RedisClient}. */
        STANDALONE,
        /** A three-master {@link RedisCluster}, clients are {@code RedisClusterClient}. */
        CLUSTER,
        /** A {@link RedisSentinelGroup}, clients are {@code RedisSentinelClient}. */
        SENTINEL
    }

    private final Kind kind;
    private final RedisServer server;
    private final RedisCluster cluster;
    private final RedisSentinelGroup sentinel;

    private RedisDeployment(Kind kind, RedisServer server, RedisCluster cluster, RedisSentinelGroup sentinel) {
        this.kind = kind;
        this.server = server;
        this.cluster = cluster;
        this.sentinel = sentinel;
    }

    /** Starts one standalone server. */
    public static RedisDeployment standalone() {
        return new RedisDeployment(Kind.STANDALONE, RedisServer.start(), null, null);
    }

    /** Starts a three-master cluster without replicas. */
    public static RedisDeployment cluster() {
        return new RedisDeployment(Kind.CLUSTER, null, RedisCluster.start(), null);
    }

    /** Starts a sentinel group (primary, two replicas, three sentinels). */
    public static RedisDeployment sentinel() {
        return new RedisDeployment(Kind.SENTINEL, null, null, RedisSentinelGroup.start());
    }

    /** Starts a deployment of {@code kind}. */
    public static RedisDeployment start(Kind kind) {
        Objects.requireNonNull(kind, "kind cannot be null");
        return switch (kind) {
            case STANDALONE -> standalone();
            case CLUSTER -> cluster();
            case SENTINEL -> sentinel();
        };
    }

    /** The topology. */
    public Kind kind() {
        return kind;
    }

    /** A new client of the topology's own kind; the caller closes it. */
    public UnifiedJedis newClient() {
        return switch (kind) {
            case STANDALONE -> server.newClient();
            case CLUSTER -> cluster.newClient();
            case SENTINEL -> sentinel.newClient();
        };
    }

    /** The data node that serves {@code key} now (the standalone server, the primary, the slot's master). */
    public RedisServer nodeFor(String key) {
        return switch (kind) {
            case STANDALONE -> server;
            case CLUSTER -> cluster.masterFor(key);
            case SENTINEL -> sentinel.primary();
        };
    }

    /** The masters that serve writes now (one, except on a cluster). */
    public List<RedisServer> masters() {
        return switch (kind) {
            case STANDALONE -> List.of(server);
            case CLUSTER -> cluster.masters();
            case SENTINEL -> List.of(sentinel.primary());
        };
    }

    /** The server version, e.g. {@code 7.0.15}. */
    public String version() {
        return masters().get(0).version();
    }

    /** The cluster, when {@link #kind()} is {@link Kind#CLUSTER}. */
    public RedisCluster redisCluster() {
        if (cluster == null) {
            throw new IllegalStateException(kind + " is not a cluster");
        }
        return cluster;
    }

    /** The sentinel group, when {@link #kind()} is {@link Kind#SENTINEL}. */
    public RedisSentinelGroup sentinelGroup() {
        if (sentinel == null) {
            throw new IllegalStateException(kind + " is not a sentinel group");
        }
        return sentinel;
    }

    /** Deletes every key and cached script on every master. */
    public void flushAll() {
        for (RedisServer m : masters()) {
            try (Jedis j = m.newConnection()) {
                j.flushAll();
                j.scriptFlush();
            }
        }
    }

    /** Stops everything. Idempotent. */
    @Override
    public void close() {
        switch (kind) {
            case STANDALONE -> server.close();
            case CLUSTER -> cluster.close();
            case SENTINEL -> sentinel.close();
        }
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
