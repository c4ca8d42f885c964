package io.github.deferlock.testing;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisSentinelClient;

/**
 * A real Sentinel deployment for tests: one primary, two replicas and three sentinels ({@code redis-server
 * <conf> --sentinel}, quorum 2), every one its own process on a loopback port. The sentinels are written
 * knowing each other and the replicas, so they are ready at once; {@code down-after-milliseconds} is small
 * (default 1 s) so failover tests are fast.
 *
 * <pre>{@code
 * try (RedisSentinelGroup group = RedisSentinelGroup.start();
 *      RedisSentinelClient redis = group.newClient()) {
 *     redis.set("k", "v");
 *     RedisServer old = group.primary();
 *     old.kill();
 *     RedisServer promoted = group.awaitFailover(old, Duration.ofSeconds(15));
 * }
 * }</pre>
 *
 * <p>Fault levers are those of each data node's {@link RedisServer} ({@link #primary()}{@code .kill()},
 * {@code pause()}, {@code resume()}, {@code restart()}). Everything is stopped and deleted on {@link
 * #close()}, and by a shutdown hook if a test forgot.
 *
 * <p>Instances are threadsafe.
 */
public final class RedisSentinelGroup implements AutoCloseable {
    private static final String SYNC_PROBE = "deferlock:test:replication-probe";

    /** The name the sentinels monitor the primary under. */
    public static final String MASTER_NAME = "deferlock";

    private static final Set<RedisSentinelGroup> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> List.copyOf(LIVE).forEach(RedisSentinelGroup::close), "deferlock-sentinel-cleanup"));
    }

    private final List<RedisServer> servers;
    private final List<SentinelProcess> sentinels;
    private final Duration downAfter;
    private final Duration failoverTimeout;
    private boolean closed;

    private RedisSentinelGroup(
            List<RedisServer> servers, List<SentinelProcess> sentinels, Duration downAfter, Duration failoverTimeout) {
        this.servers = List.copyOf(servers);
        this.sentinels = List.copyOf(sentinels);
        this.downAfter = downAfter;
        this.failoverTimeout = failoverTimeout;
    }

    /** Starts a group with the defaults: down-after 1 s, failover-timeout 3 s. */
    public static RedisSentinelGroup start() {
        return builder().start();
    }

    /** Returns a builder; builders are not threadsafe. */
    public static Builder builder() {
        return new Builder();
    }

    /** The data nodes: the primary at start first, then the two replicas. */
    public List<RedisServer> servers() {
        return servers;
    }

    /** The addresses of the three sentinels. */
    public Set<HostAndPort> sentinels() {
        Set<HostAndPort> out = new LinkedHashSet<>();
        sentinels.forEach(s -> out.add(s.hostAndPort()));
        return out;
    }

    /** {@code sentinel down-after-milliseconds}. */
    public Duration downAfter() {
        return downAfter;
    }

    /** {@code sentinel failover-timeout}. */
    public Duration failoverTimeout() {
        return failoverTimeout;
    }

    /**
     * The data node the sentinels currently name as primary.
     *
     * @throws IllegalStateException when no sentinel answers
     */
    public RedisServer primary() {
        HostAndPort addr = primaryAddress();
        return servers.stream()
                .filter(s -> s.port() == addr.getPort())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("sentinels name an unknown primary " + addr));
    }

    /** The primary's address as the first answering sentinel gives it. */
    public HostAndPort primaryAddress() {
        RuntimeException last = null;
        for (SentinelProcess s : sentinels) {
            if (!s.isAlive()) {
                continue;
            }
            try (Jedis j = s.connect()) {
                List<String> addr = j.sentinelGetMasterAddrByName(MASTER_NAME);
                return new HostAndPort(addr.get(0), Integer.parseInt(addr.get(1)));
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no sentinel answers", last);
    }

    /** The data nodes other than the current primary. */
    public List<RedisServer> replicas() {
        RedisServer p = primary();
        return servers.stream().filter(s -> s != p).toList();
    }

    /** A new client that follows the sentinels to the current primary; the caller closes it. */
    public RedisSentinelClient newClient() {
        return RedisSentinelClient.builder()
                .masterName(MASTER_NAME)
                .sentinels(sentinels())
                .clientConfig(DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(1000)
                        .socketTimeoutMillis(2000)
                        .build())
                .build();
    }

    /**
     * Waits until every live sentinel names a primary other than {@code old}, and that node says it is a
     * master.
     *
     * @return the new primary
     * @throws IllegalStateException when that does not happen within {@code timeout}
     */
    public RedisServer awaitFailover(RedisServer old, Duration timeout) {
        Objects.requireNonNull(old, "old cannot be null");
        RedisCluster.await(timeout, "a failover away from port " + old.port(), () -> {
            for (SentinelProcess s : sentinels) {
                if (!s.isAlive()) {
                    continue;
                }
                try (Jedis j = s.connect()) {
                    if (Integer.parseInt(
                                    j.sentinelGetMasterAddrByName(MASTER_NAME).get(1))
                            == old.port()) {
                        return false;
                    }
                } catch (RuntimeException e) {
                    return false;
                }
            }
            RedisServer now = primary();
            try (Jedis j = RedisCluster.connect(now)) {
                return RedisServer.infoField(j.info("replication"), "role").equals("master");
            } catch (RuntimeException e) {
                return false;
            }
        });
        return primary();
    }

    /** Stops every sentinel and data node and deletes their dirs. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LIVE.remove(this);
        sentinels.forEach(SentinelProcess::close);
        servers.forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "RedisSentinelGroup[servers="
                + servers.stream().map(RedisServer::port).toList() + ", sentinels="
                + sentinels.stream().map(SentinelProcess::port).toList() + "]";
    }

    /**
     * Builds a {@link RedisSentinelGroup}. Each setting may be set once; a second call is an {@link
     * IllegalStateException} naming the old value. Not threadsafe.
     */
    public static final class Builder {
        private Duration downAfter;
        private Duration failoverTimeout;
        private final List<String[]> settings = new ArrayList<>();
        /** Where the sentinels' ports come from: free loopback ports, or a test's sequence. */
        IntSupplier sentinelPorts = RedisServer::freePort;

        private Builder() {}

        /** Sets {@code sentinel down-after-milliseconds} (default 1 s). */
        public Builder downAfter(Duration d) {
            Objects.requireNonNull(d, "downAfter cannot be null");
            if (downAfter != null) {
                throw new IllegalStateException("downAfter was already set to " + downAfter);
            }
            downAfter = d;
            return this;
        }

        /** Sets {@code sentinel failover-timeout} (default 3 s). */
        public Builder failoverTimeout(Duration d) {
            Objects.requireNonNull(d, "failoverTimeout cannot be null");
            if (failoverTimeout != null) {
                throw new IllegalStateException("failoverTimeout was already set to " + failoverTimeout);
            }
            failoverTimeout = d;
            return this;
        }

        /** Adds one config line to every data node, e.g. {@code ("min-replicas-to-write", "1")}. */
        public Builder setting(String name, String value) {
            ConfigLines.add(settings, name, value);
            return this;
        }

        /**
         * Starts the primary, the replicas (waiting until both are in sync) and the sentinels.
         *
         * @throws IllegalStateException when a process does not start or replication does not come up
         */
        public RedisSentinelGroup start() {
            Duration down = downAfter == null ? Duration.ofSeconds(1) : downAfter;
            Duration failover = failoverTimeout == null ? Duration.ofSeconds(3) : failoverTimeout;
            List<RedisServer> servers = new ArrayList<>();
            List<SentinelProcess> sentinels = new ArrayList<>();
            try {
                servers.add(node(null));
                RedisServer primary = servers.get(0);
                servers.add(node(primary));
                servers.add(node(primary));
                RedisCluster.await(Duration.ofSeconds(20), "both replicas in sync and acknowledging writes", () -> {
                    try (Jedis j = RedisCluster.connect(primary)) {
                        String info = j.info("replication");
                        if (!info.contains("connected_slaves:2")
                                || info.contains("state=wait_bgsave")
                                || info.contains("state=send_bulk")) {
                            return false;
                        }
                        // online is not yet acking: a test's first WAIT could time out on a replica still
                        // loading what it was sent, so one write must be acknowledged by both first
                        j.set(SYNC_PROBE, "1");
                        long acked = j.waitReplicas(2, 1_000);
                        j.del(SYNC_PROBE);
                        return acked == 2 && j.waitReplicas(2, 1_000) == 2;
                    }
                });
                startSentinels(servers, sentinels, down, failover);
                RedisSentinelGroup group = new RedisSentinelGroup(servers, sentinels, down, failover);
                LIVE.add(group);
                return group;
            } catch (RuntimeException e) {
                sentinels.forEach(SentinelProcess::close);
                servers.forEach(RedisServer::close);
                throw e;
            }
        }

        /**
         * Starts the three sentinels into {@code sentinels}. Their ports are chosen before any of them binds (each
         * one's config names the others), so a port can be taken in between — by another process, or as the
         * local port of any outgoing connection, since free ports come from the ephemeral range. Such a start is
         * retried with three new ports, up to 5 times; any other failure is thrown at once.
         */
        private void startSentinels(
                List<RedisServer> servers, List<SentinelProcess> sentinels, Duration down, Duration failover) {
            RedisServer primary = servers.get(0);
            RuntimeException last = null;
            for (int attempt = 0; attempt < 5; attempt++) {
                try {
                    startSentinelsOnce(servers, sentinels, primary, down, failover);
                    return;
                } catch (IllegalStateException e) {
                    last = e;
                    sentinels.forEach(SentinelProcess::close);
                    sentinels.clear();
                    if (!String.valueOf(e.getMessage()).contains("Address already in use")) {
                        throw e;
                    }
                }
            }
            throw last;
        }

        private void startSentinelsOnce(
                List<RedisServer> servers,
                List<SentinelProcess> sentinels,
                RedisServer primary,
                Duration down,
                Duration failover) {
            RedisBinary binary = RedisBinary.resolve();
            SecureRandom random = new SecureRandom();
            List<String> ids = new ArrayList<>();
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                byte[] id = new byte[20];
                random.nextBytes(id);
                ids.add(HexFormat.of().formatHex(id));
                int port;
                do {
                    port = sentinelPorts.getAsInt();
                } while (ports.contains(port));
                ports.add(port);
            }
            for (int i = 0; i < 3; i++) {
                StringBuilder conf = new StringBuilder();
                conf.append("sentinel myid ").append(ids.get(i)).append('\n');
                conf.append("sentinel monitor ")
                        .append(MASTER_NAME)
                        .append(" 127.0.0.1 ")
                        .append(primary.port())
                        .append(" 2\n");
                conf.append("sentinel down-after-milliseconds ")
                        .append(MASTER_NAME)
                        .append(' ')
                        .append(down.toMillis())
                        .append('\n');
                conf.append("sentinel failover-timeout ")
                        .append(MASTER_NAME)
                        .append(' ')
                        .append(failover.toMillis())
                        .append('\n');
                conf.append("sentinel parallel-syncs ").append(MASTER_NAME).append(" 1\n");
                for (int r = 1; r < 3; r++) {
                    conf.append("sentinel known-replica ")
                            .append(MASTER_NAME)
                            .append(" 127.0.0.1 ")
                            .append(servers.get(r).port())
                            .append('\n');
                }
                for (int o = 0; o < 3; o++) {
                    if (o != i) {
                        conf.append("sentinel known-sentinel ")
                                .append(MASTER_NAME)
                                .append(" 127.0.0.1 ")
                                .append(ports.get(o))
                                .append(' ')
                                .append(ids.get(o))
                                .append('\n');
                    }
                }
                SentinelProcess s = new SentinelProcess(binary, ports.get(i));
                sentinels.add(s);
                s.start(conf.toString());
            }
        }

        private RedisServer node(RedisServer primary) {
            RedisServer.Builder b = RedisServer.builder().startTimeout(Duration.ofSeconds(10));
            if (primary != null) {
                b.setting("replicaof", primary.host() + " " + primary.port());
            }
            b.setting("repl-diskless-sync", "yes");
            b.setting("repl-diskless-sync-delay", "0");
            settings.forEach(s -> b.setting(s[0], s[1]));
            return b.start();
        }
    }
}
