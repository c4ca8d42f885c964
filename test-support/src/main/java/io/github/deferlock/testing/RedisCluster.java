package io.github.deferlock.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A real Redis Cluster for tests: three masters (and optionally one replica each), every node its own {@code
 * redis-server} process on a loopback port with {@code cluster-enabled yes}. Slots are split evenly over the
 * masters ({@code CLUSTER ADDSLOTSRANGE} on 7.0+, {@code ADDSLOTS} on 6.2), the nodes meet through {@code
 * CLUSTER MEET} and replicas attach through {@code CLUSTER REPLICATE} — no {@code redis-cli} needed. {@link
 * Builder#start()} returns once {@code CLUSTER INFO} says {@code cluster_state:ok} on every node.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.builder().replicas(true).start();
 *      RedisClusterClient redis = cluster.newClient()) {
 *     redis.set("k", "v");
 *     RedisServer owner = cluster.masterFor("k");
 *     owner.kill();                       // its replica takes over after the node timeout
 *     cluster.awaitHealthy(Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>Fault levers are those of each node's {@link RedisServer}: {@link #node(int)}{@code .kill()}, {@code
 * pause()}, {@code resume()}, {@code restart()} (same port and {@code nodes.conf}, so the node rejoins).
 * Every node is stopped and its dir deleted on {@link #close()}, and by a shutdown hook if a test forgot.
 *
 * <p>Instances are threadsafe.
 */
public final class RedisCluster implements AutoCloseable {

    /** The number of masters. */
    public static final int MASTERS = 3;

    private static final Set<RedisCluster> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(() -> List.copyOf(LIVE).forEach(RedisCluster::close), "deferlock-cluster-cleanup"));
    }

    private final List<RedisServer> nodes;
    private final List<String> ids;
    private final int replicasPerMaster;
    private final Duration nodeTimeout;
    private boolean closed;

    private RedisCluster(List<RedisServer> nodes, List<String> ids, int replicasPerMaster, Duration nodeTimeout) {
        this.nodes = List.copyOf(nodes);
        this.ids = List.copyOf(ids);
        this.replicasPerMaster = replicasPerMaster;
        this.nodeTimeout = nodeTimeout;
    }

    /** Starts three masters without replicas and the default node timeout. */
    public static RedisCluster start() {
        return builder().start();
    }

    /** Returns a builder; builders are not threadsafe. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Every node: masters first ({@code 0..2}), then replicas ({@code 3..5}, replica {@code 3 + i} of master
     * {@code i}) — the roles at start; after a failover see {@link #masters()}.
     */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** Node {@code i} in start order (see {@link #nodes()}). */
    public RedisServer node(int i) {
        return nodes.get(i);
    }

    /** The cluster node id of node {@code i}. */
    public String nodeId(int i) {
        return ids.get(i);
    }

    /** The seed addresses of every node, for a cluster client. */
    public Set<HostAndPort> seeds() {
        Set<HostAndPort> out = new LinkedHashSet<>();
        nodes.forEach(n -> out.add(n.hostAndPort()));
        return out;
    }

    /** A new cluster client over every node; the caller closes it. */
    public RedisClusterClient newClient() {
        return RedisClusterClient.builder()
                .nodes(seeds())
                .clientConfig(DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(1000)
                        .socketTimeoutMillis(2000)
                        .build())
                .maxAttempts(8)
                .maxTotalRetriesDuration(nodeTimeout.multipliedBy(6).plusSeconds(2))
                .build();
    }

    /** The cluster node timeout ({@code cluster-node-timeout}). */
    public Duration nodeTimeout() {
        return nodeTimeout;
    }

    /** The hash slot of {@code key} (its hash tag when it has one). */
    public static int slot(String key) {
        return JedisClusterCRC16.getSlot(key);
    }

    /** The running node that currently serves {@code slot} as master, as a live node sees it. */
    public RedisServer masterForSlot(int slot) {
        for (RedisServer n : runningNodes()) {
            try (Jedis j = connect(n)) {
                for (Object range : slots(j)) {
                    List<?> r = (List<?>) range;
                    long from = (Long) r.get(0);
                    long to = (Long) r.get(1);
                    if (slot >= from && slot <= to) {
                        int port = ((Long) ((List<?>) r.get(2)).get(1)).intValue();
                        return nodes.stream()
                                .filter(x -> x.port() == port)
                                .findFirst()
                                .orElseThrow();
                    }
                }
            } catch (RuntimeException e) {
                // try the next node
            }
        }
        throw new IllegalStateException("no live node knows the master of slot " + slot);
    }

    /** The node that currently serves {@code key} as master. */
    public RedisServer masterFor(String key) {
        return masterForSlot(slot(key));
    }

    /** The running nodes whose role is master right now. */
    public List<RedisServer> masters() {
        List<RedisServer> out = new ArrayList<>();
        for (RedisServer n : runningNodes()) {
            try (Jedis j = connect(n)) {
                if (RedisServer.infoField(j.info("replication"), "role").equals("master")) {
                    out.add(n);
                }
            } catch (RuntimeException e) {
                // paused or dying: not a usable master
            }
        }
        return out;
    }

    /** The number of keys node {@code n} holds ({@code DBSIZE}). */
    public long keyCount(RedisServer n) {
        try (Jedis j = connect(n)) {
            return j.dbSize();
        }
    }

    /**
     * Waits until every running, unpaused node says {@code cluster_state:ok} and agrees that every slot is
     * served by a running master.
     *
     * @throws IllegalStateException when that does not happen within {@code timeout}
     */
    public void awaitHealthy(Duration timeout) {
        await(timeout, "cluster_state:ok with every slot on a running master", this::healthy);
    }

    private boolean healthy() {
        List<RedisServer> running = runningNodes();
        if (running.isEmpty()) {
            return false;
        }
        Set<Integer> livePorts = new java.util.HashSet<>();
        running.forEach(n -> livePorts.add(n.port()));
        for (RedisServer n : running) {
            try (Jedis j = connect(n)) {
                if (!j.clusterInfo().contains("cluster_state:ok")) {
                    return false;
                }
                long covered = 0;
                for (Object range : slots(j)) {
                    List<?> r = (List<?>) range;
                    int port = ((Long) ((List<?>) r.get(2)).get(1)).intValue();
                    if (!livePorts.contains(port)) {
                        return false;
                    }
                    covered += (Long) r.get(1) - (Long) r.get(0) + 1;
                }
                if (covered != 16384) {
                    return false;
                }
            } catch (RuntimeException e) {
                return false;
            }
        }
        return true;
    }

    private List<RedisServer> runningNodes() {
        return nodes.stream().filter(n -> n.isRunning() && !n.isPaused()).toList();
    }

    /** Stops every node and deletes their dirs. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LIVE.remove(this);
        nodes.forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "RedisCluster[" + nodes.stream().map(RedisServer::port).toList() + ", replicas=" + replicasPerMaster
                + "]";
    }

    private static List<?> slots(Jedis j) {
        return (List<?>) j.sendCommand(Protocol.Command.CLUSTER, "SLOTS");
    }

    static Jedis connect(RedisServer n) {
        return new Jedis(
                n.hostAndPort(),
                DefaultJedisClientConfig.builder()
                        .autoNegotiateProtocol(false)
                        .connectionTimeoutMillis(500)
                        .socketTimeoutMillis(2000)
                        .build());
    }

    static void await(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    /**
     * Starts a node whose cluster bus port ({@code port + 10000}) is valid and free: a port above 55535 or a
     * taken bus port makes redis-server exit, so such a start is retried on another port.
     */
    static RedisServer startNode(List<String[]> settings) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            RedisServer.Builder b = RedisServer.builder().startTimeout(Duration.ofSeconds(10));
            settings.forEach(s -> b.setting(s[0], s[1]));
            try {
                RedisServer server = b.start();
                if (server.port() <= 55535) {
                    return server;
                }
                server.close();
            } catch (IllegalStateException e) {
                last = e;
            }
        }
        throw new IllegalStateException("cannot start a cluster node", last);
    }

    /**
     * Builds a {@link RedisCluster}. Each setting may be set once; a second call is an {@link
     * IllegalStateException} naming the old value. Not threadsafe.
     */
    public static final class Builder {
        private Boolean replicas;
        private Duration nodeTimeout;
        private final List<String[]> settings = new ArrayList<>();

        private Builder() {}

        /** Gives every master one replica (default false). */
        public Builder replicas(boolean on) {
            if (replicas != null) {
                throw new IllegalStateException("replicas was already set to " + replicas);
            }
            replicas = on;
            return this;
        }

        /**
         * Sets {@code cluster-node-timeout} (default 1 s): how long a master may be unreachable before its
         * replica takes over.
         */
        public Builder nodeTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout cannot be null");
            if (timeout.toMillis() < 100) {
                throw new IllegalArgumentException("nodeTimeout must be at least 100 ms, not " + timeout);
            }
            if (nodeTimeout != null) {
                throw new IllegalStateException("nodeTimeout was already set to " + nodeTimeout);
            }
            nodeTimeout = timeout;
            return this;
        }

        /** Adds one config line {@code name value} to every node, e.g. {@code ("appendonly", "yes")}. */
        public Builder setting(String name, String value) {
            ConfigLines.add(settings, name, value);
            return this;
        }

        /**
         * Starts the nodes, assigns the slots, meets the nodes, attaches replicas and waits for {@code
         * cluster_state:ok} on every node.
         *
         * @throws IllegalStateException when a node does not start or the cluster is not ok within 20 s
         */
        public RedisCluster start() {
            Duration timeout = nodeTimeout == null ? Duration.ofSeconds(1) : nodeTimeout;
            int perMaster = Boolean.TRUE.equals(replicas) ? 1 : 0;
            List<String[]> all = new ArrayList<>();
            all.add(new String[] {"cluster-enabled", "yes"});
            all.add(new String[] {"cluster-config-file", "nodes.conf"});
            all.add(new String[] {"cluster-node-timeout", Long.toString(timeout.toMillis())});
            all.add(new String[] {"cluster-replica-validity-factor", "0"});
            all.add(new String[] {"cluster-require-full-coverage", "yes"});
            // a (re)attached replica syncs at once, not after the 5 s default delay of diskless sync
            all.add(new String[] {"repl-diskless-sync", "yes"});
            all.add(new String[] {"repl-diskless-sync-delay", "0"});
            all.addAll(settings);
            int count = MASTERS * (1 + perMaster);
            List<RedisServer> nodes = new ArrayList<>();
            List<String> ids = new ArrayList<>();
            try {
                for (int i = 0; i < count; i++) {
                    nodes.add(startNode(all));
                }
                for (RedisServer n : nodes) {
                    try (Jedis j = connect(n)) {
                        ids.add(j.clusterMyId());
                    }
                }
                boolean ranges = nodes.get(0).versionAtLeast(7, 0);
                for (int i = 0; i < MASTERS; i++) {
                    int from = i * 16384 / MASTERS;
                    int to = (i + 1) * 16384 / MASTERS - 1;
                    try (Jedis j = connect(nodes.get(i))) {
                        if (ranges) {
                            j.sendCommand(Protocol.Command.CLUSTER, "ADDSLOTSRANGE", "" + from, "" + to);
                        } else {
                            j.clusterAddSlots(IntStream.rangeClosed(from, to).toArray());
                        }
                        j.sendCommand(Protocol.Command.CLUSTER, "SET-CONFIG-EPOCH", "" + (i + 1));
                    }
                }
                try (Jedis j = connect(nodes.get(0))) {
                    for (int i = 1; i < count; i++) {
                        j.clusterMeet(nodes.get(i).host(), nodes.get(i).port());
                    }
                }
                Duration startTimeout = Duration.ofSeconds(20);
                await(startTimeout, "every node to know every other", () -> nodes.stream()
                        .allMatch(n -> knownNodes(n) == count));
                for (int i = MASTERS; i < count; i++) {
                    String master = ids.get(i - MASTERS);
                    RedisServer replica = nodes.get(i);
                    await(startTimeout, "replica " + i + " to see its master", () -> {
                        try (Jedis j = connect(replica)) {
                            j.clusterReplicate(master);
                            return true;
                        } catch (RuntimeException e) {
                            return false;
                        }
                    });
                }
                RedisCluster cluster = new RedisCluster(nodes, ids, perMaster, timeout);
                cluster.awaitHealthy(startTimeout);
                for (int i = 0; i < MASTERS && perMaster > 0; i++) {
                    RedisServer m = nodes.get(i);
                    await(startTimeout, "master " + i + " to have an in-sync replica", () -> {
                        try (Jedis j = connect(m)) {
                            String info = j.info("replication");
                            return info.contains("connected_slaves:1") && info.contains("state=online");
                        }
                    });
                }
                LIVE.add(cluster);
                return cluster;
            } catch (RuntimeException e) {
                nodes.forEach(RedisServer::close);
                throw e;
            }
        }

        private static int knownNodes(RedisServer n) {
            try (Jedis j = connect(n)) {
                return Integer.parseInt(RedisServer.infoField(j.clusterInfo(), "cluster_known_nodes"));
            } catch (RuntimeException e) {
                return -1;
            }
        }
    }
}
