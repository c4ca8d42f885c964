package io.github.deferlock.consumer.internal;

import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Tells an infrastructure failure from a handler failure, in one place for every adapter. A failure is
 * infrastructure when it, or any exception in its cause chain, says that Redis could not be reached or could not
 * serve the call yet: a {@link JedisConnectionException} (unreachable, reset, timed out), a cluster that ran out of
 * attempts, or a reply {@code LOADING}, {@code READONLY}, {@code MASTERDOWN}, {@code TRYAGAIN} or {@code
 * CLUSTERDOWN} (a restart or a failover in progress). A lock-core {@code LockException} or a delay-core {@code
 * DelayQueueException} caused by one of them is therefore infrastructure too; anything else — the user's code
 * threw, the lock was lost while the handler ran, a THROW conflict — is a handler failure. Stateless.
 */
public final class Failures {
    private static final String[] TRANSIENT_REPLIES = {"LOADING", "READONLY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN"};
    private static final int MAX_DEPTH = 32;

    private Failures() {}

    /** True when {@code error} (or one of its causes) is Redis being unreachable or not ready. */
    public static boolean isInfrastructure(Throwable error) {
        Throwable t = error;
        for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
            if (t instanceof JedisConnectionException || t instanceof JedisClusterOperationException) {
                return true;
            }
            if (t instanceof JedisDataException && isTransientReply(t.getMessage())) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    private static boolean isTransientReply(String message) {
        if (message == null) {
            return false;
        }
        for (String r : TRANSIENT_REPLIES) {
            if (message.startsWith(r)) {
                return true;
            }
        }
        return false;
    }
}
