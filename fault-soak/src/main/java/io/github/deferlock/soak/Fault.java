package io.github.deferlock.soak;

/**
 * One fault of a schedule.
 *
 * @param kind what happens
 * @param atMs when it starts, from the start of the load
 * @param durationMs how long it lasts: the pause, the outage, the blackhole or latency period, or the time
 *     before a killed client JVM is replaced; 0 for a cut
 * @param slot the client JVM it hits (client faults); for {@link Kind#MASTER_FAILOVER} and {@link
 *     Kind#SLOT_MIGRATE} the index into {@link #TARGETS} of the hash tag whose shard or slot it hits
 * @param latencyMs the added latency per forwarded chunk ({@link Kind#PROXY_LATENCY} only)
 */
record Fault(Kind kind, long atMs, long durationMs, int slot, long latencyMs) {

    /**
     * The hash tags of what the load touches on a cluster: the queue's keys ({@code {soak}}, {@link
     * SoakClient#QUEUE}) and the two lock keys ({@code lock:{r0}}, {@code lock:{r1}}, {@link
     * SoakClient#RESOURCES}).
     */
    static final String[] TARGETS = {"soak", "r0", "r1"};

    /** The hash tag a cluster fault hits. */
    String target() {
        return TARGETS[slot % TARGETS.length];
    }

    /** The kinds of fault a schedule mixes; {@link Topology#kinds()} says which fit which deployment. */
    enum Kind {
        /** SIGKILL of a client JVM, replaced by a fresh one after the duration. */
        CLIENT_KILL,
        /** SIGSTOP of a client JVM for the duration, then SIGCONT. */
        CLIENT_STOP,
        /** SIGKILL of the queue/lock redis-server (AOF always), restarted after the duration. */
        REDIS_KILL,
        /** The proxy resets every open connection. */
        PROXY_CUT,
        /** The proxy swallows bytes both ways for the duration. */
        PROXY_BLACKHOLE,
        /** The proxy swallows replies for the duration (the server acts, the client never hears). */
        PROXY_BLACKHOLE_REPLIES,
        /** The proxy delays every chunk for the duration. */
        PROXY_LATENCY,
        /**
         * Sentinel: SIGKILL of the primary; the sentinels promote a replica; the old primary is restarted the
         * duration after the failover completed and rejoins as a replica. A failover window.
         */
        MASTER_KILL,
        /**
         * Cluster: SIGKILL of the master serving the target's slot; its replica is promoted (automatic
         * failover after the node timeout); the killed node is restarted the duration after the cluster is
         * healthy again and rejoins as the new master's replica. A failover window.
         */
        MASTER_FAILOVER,
        /**
         * Cluster: the target's slot moves to another master while the load runs: {@code SETSLOT IMPORTING}
         * on the target, {@code MIGRATING} on the source, its keys moved with {@code MIGRATE} one at a time
         * over the duration, then {@code SETSLOT NODE} on every master. Loses nothing: not a failover window.
         */
        SLOT_MIGRATE
    }

    @Override
    public String toString() {
        return switch (kind) {
            case CLIENT_KILL -> "t=" + atMs + "ms SIGKILL client " + slot + ", replaced after " + durationMs + "ms";
            case CLIENT_STOP -> "t=" + atMs + "ms SIGSTOP client " + slot + " for " + durationMs + "ms";
            case REDIS_KILL -> "t=" + atMs + "ms SIGKILL redis-server, restart after " + durationMs + "ms";
            case PROXY_CUT -> "t=" + atMs + "ms proxy cut";
            case PROXY_BLACKHOLE -> "t=" + atMs + "ms proxy blackhole for " + durationMs + "ms";
            case PROXY_BLACKHOLE_REPLIES -> "t=" + atMs + "ms proxy blackhole replies for " + durationMs + "ms";
            case PROXY_LATENCY -> "t=" + atMs + "ms proxy latency " + latencyMs + "ms for " + durationMs + "ms";
            case MASTER_KILL -> "t=" + atMs + "ms SIGKILL primary, restart " + durationMs + "ms after the failover";
            case MASTER_FAILOVER ->
                "t=" + atMs + "ms SIGKILL master of {" + target() + "}, restart " + durationMs
                        + "ms after the failover";
            case SLOT_MIGRATE -> "t=" + atMs + "ms migrate slot of {" + target() + "} over " + durationMs + "ms";
        };
    }
}
