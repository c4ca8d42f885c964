package io.github.deferlock.soak;

import java.util.List;
import java.util.Locale;

/**
 * The Redis deployment a schedule runs its load against, and the faults that fit it. The recorder is always
 * a separate standalone redis-server that no fault touches. Immutable.
 */
enum Topology {
    /**
     * One redis-server with AOF {@code appendfsync always} behind a fault proxy: the original soak. Its fault
     * list is the one every seed drew from before topologies existed, in the same order, so seeds replay as
     * before.
     */
    STANDALONE(
            List.of(
                    Fault.Kind.CLIENT_KILL,
                    Fault.Kind.CLIENT_STOP,
                    Fault.Kind.REDIS_KILL,
                    Fault.Kind.PROXY_CUT,
                    Fault.Kind.PROXY_BLACKHOLE,
                    Fault.Kind.PROXY_BLACKHOLE_REPLIES,
                    Fault.Kind.PROXY_LATENCY),
            0,
            15_000),
    /**
     * A primary, two replicas and three sentinels ({@code RedisSentinelGroup}, down-after 1 s, failover-timeout
     * 3 s), AOF always on every data node; clients follow the sentinels. No proxy: the sentinels hand out the
     * servers' real addresses. Enqueues with replica acknowledgement wait for both replicas, so whichever one
     * is promoted has them.
     */
    SENTINEL(List.of(Fault.Kind.CLIENT_KILL, Fault.Kind.CLIENT_STOP, Fault.Kind.MASTER_KILL), 2, 30_000),
    /**
     * Three masters with one replica each ({@code RedisCluster}, node-timeout 1 s), AOF always on every node.
     * Enqueues with replica acknowledgement wait for the one replica of their shard, the one that is promoted.
     */
    CLUSTER(
            List.of(
                    Fault.Kind.CLIENT_KILL,
                    Fault.Kind.CLIENT_STOP,
                    Fault.Kind.MASTER_FAILOVER,
                    Fault.Kind.SLOT_MIGRATE),
            1,
            30_000);

    private final List<Fault.Kind> kinds;
    private final int replicas;
    private final long settleMaxMs;

    Topology(List<Fault.Kind> kinds, int replicas, long settleMaxMs) {
        this.kinds = kinds;
        this.replicas = replicas;
        this.settleMaxMs = settleMaxMs;
    }

    /** The fault kinds of this topology. */
    List<Fault.Kind> kinds() {
        return kinds;
    }

    /**
     * What a schedule draws each fault from: {@link #kinds()}, each topology fault (failover, slot migration)
     * twice on Sentinel and Cluster, so about half the faults hit Redis as on standalone.
     */
    List<Fault.Kind> draws() {
        if (this == STANDALONE) {
            return kinds;
        }
        List<Fault.Kind> out = new java.util.ArrayList<>(kinds);
        kinds.stream().skip(2).forEach(out::add);
        return List.copyOf(out);
    }

    /**
     * The replicas every other enqueue waits for ({@code DelayQueue.Builder#waitForReplicas}): every replica a
     * failover could promote; 0 on standalone (no replicas, every enqueue is plain).
     */
    int replicas() {
        return replicas;
    }

    /**
     * The longest wait for the queue to drain after the last fault: 15 s standalone; 30 s with replicas,
     * where the last fault may end a few seconds before the shard serves again everywhere (failover 2–4 s
     * on loopback, more on a loaded box) and jobs claimed on a node that was then lost come back only after
     * their visibility timeout.
     */
    long settleMaxMs() {
        return settleMaxMs;
    }

    /** The option value: {@code standalone}, {@code sentinel}, {@code cluster}. */
    String option() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The topology named {@code option} (as printed by {@link #option()}). */
    static Topology of(String option) {
        for (Topology t : values()) {
            if (t.option().equals(option)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown topology " + option + " (standalone, sentinel or cluster)");
    }
}
