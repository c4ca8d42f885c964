package io.github.deferlock.soak;

/**
 * One fault of a schedule.
 *
 * @param kind what happens
 * @param atMs when it starts, from the start of the load
 * @param durationMs how long it lasts: the pause, the outage, the blackhole or latency period, or the time
 *     before a killed client JVM is replaced; 0 for a cut
 * @param slot the client JVM it hits (client faults only)
 * @param latencyMs the added latency per forwarded chunk ({@link Kind#PROXY_LATENCY} only)
 */
record Fault(Kind kind, long atMs, long durationMs, int slot, long latencyMs) {

    /** The kinds of fault a schedule mixes. */
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
        PROXY_LATENCY
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
        };
    }
}
