package io.github.deferlock.consumer.internal;

import io.github.deferlock.conflict.ConflictHandlingException;
import io.github.deferlock.conflict.HandlerFailedException;
import io.github.deferlock.lock.LockException;
import java.util.NoSuchElementException;
import java.util.regex.Pattern;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Tells the kinds of failure apart, in one place for every adapter ({@link #classify}), in this order:
 *
 * <ol>
 *   <li><b>Handler</b>, first: whatever the user's handler threw ({@link #thrownByHandler}), even its own Redis
 *       being down, and any {@link Error} but a {@link VirtualMachineError} (which the caller lets pass).
 *   <li><b>Backpressure</b>: an ordered DEFER whose key has its parked FIFO full ({@code ParkedLimitException}
 *       of lock-retry-integration, issue 27, recognised by its simple name so that this module does not need
 *       that class): retried in place after a backoff, costing no attempt.
 *   <li><b>Infrastructure</b> ({@link #isInfrastructure}): Redis could not be reached or could not serve the
 *       call yet.
 *   <li><b>Handler</b>: anything else — the lock was lost while the handler ran, a THROW conflict, a bad key.
 * </ol>
 *
 * Stateless.
 */
public final class Failures {
    /** Replies of a Redis that is restarting, failing over, blocked or refusing writes for a while. */
    private static final String[] TRANSIENT_REPLIES = {
        "LOADING", "READONLY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "BUSY", "MISCONF", "NOREPLICAS"
    };
    /** lock-core's {@code waitForReplicas} failing: too few replicas acknowledged, the lock was released. */
    private static final Pattern TOO_FEW_REPLICAS = Pattern.compile(" reached \\d+ of \\d+ replicas within ");

    private static final String POOL_EXHAUSTED = "Could not get a resource from the pool";
    private static final String PARKED_LIMIT = "ParkedLimitException";
    private static final String CONFLICT_PACKAGE = "io.github.deferlock.conflict.";
    private static final String HANDLER_CLASS = CONFLICT_PACKAGE + "ConflictAwareHandler";
    private static final int MAX_DEPTH = 32;

    private Failures() {}

    /** What a failure of {@code ConflictAwareHandler.handle} means for the message. */
    public enum Kind {
        /** The user's handler failed: uses an attempt, dead-letters after the last. */
        HANDLER,
        /** Redis was unreachable or not ready: waited out behind the outage gate, no attempt. */
        INFRASTRUCTURE,
        /** The key's parked FIFO is full (ordered DEFER): retried in place after a backoff, no attempt. */
        BACKPRESSURE
    }

    /** The kind of {@code error}, thrown by {@code ConflictAwareHandler.handle} (see the class comment). */
    public static Kind classify(Throwable error) {
        if (thrownByHandler(error)) {
            return Kind.HANDLER;
        }
        if (error instanceof ConflictHandlingException
                && PARKED_LIMIT.equals(error.getClass().getSimpleName())) {
            return Kind.BACKPRESSURE;
        }
        return isInfrastructure(error) ? Kind.INFRASTRUCTURE : Kind.HANDLER;
    }

    /**
     * True when {@code error} came from the user's code: a {@link HandlerFailedException} (a checked exception of
     * the handler, wrapped), an {@link Error}, or an exception whose stack trace shows it was thrown inside the
     * handler that {@code ConflictAwareHandler} called — a frame of {@code ConflictAwareHandler} (its lambdas that
     * call the handler) directly above a frame outside the {@code io.github.deferlock.conflict} package. The
     * library's own calls made there (the done marker) are frames of that package, so they stay infrastructure
     * when Redis fails. An exception without a stack trace is judged by its type alone.
     */
    public static boolean thrownByHandler(Throwable error) {
        if (error instanceof HandlerFailedException || error instanceof Error) {
            return true;
        }
        StackTraceElement[] frames = error.getStackTrace();
        for (int i = 1; i < frames.length; i++) {
            StackTraceElement caller = frames[i];
            if (caller.getClassName().startsWith(HANDLER_CLASS)
                    && caller.getMethodName().startsWith("lambda$")
                    && !frames[i - 1].getClassName().startsWith(CONFLICT_PACKAGE)) {
                return true;
            }
        }
        return false;
    }

    /**
     * True when {@code error} (or one of its causes) is Redis being unreachable or not ready: a {@link
     * JedisConnectionException} (unreachable, reset, timed out), a cluster that ran out of attempts, an exhausted
     * connection pool, a reply {@code LOADING}, {@code READONLY}, {@code MASTERDOWN}, {@code TRYAGAIN}, {@code
     * CLUSTERDOWN} (a restart or a failover in progress), {@code BUSY} (a long script), {@code MISCONF} (writes
     * refused until a snapshot succeeds) or {@code NOREPLICAS}, or a lock that reached too few replicas ({@code
     * waitForReplicas}). A lock-core {@code LockException} or a delay-core {@code DelayQueueException} caused by
     * one of them is therefore infrastructure too.
     */
    public static boolean isInfrastructure(Throwable error) {
        Throwable t = error;
        for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
            if (t instanceof JedisConnectionException
                    || t instanceof JedisClusterOperationException
                    || t instanceof JedisBusyException) {
                return true;
            }
            if (t instanceof JedisDataException && isTransientReply(t.getMessage())) {
                return true;
            }
            if (t.getClass() == JedisException.class
                    && (t.getCause() instanceof NoSuchElementException
                            || String.valueOf(t.getMessage()).startsWith(POOL_EXHAUSTED))) {
                return true; // commons-pool2 found no connection in time
            }
            if (t instanceof LockException
                    && TOO_FEW_REPLICAS.matcher(String.valueOf(t.getMessage())).find()) {
                return true; // LockScripts.acquireAndWait: a typed exception in lock-core would be better
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
            // the whole reply code: BUSYGROUP is no BUSY
            if (message.startsWith(r) && (message.length() == r.length() || message.charAt(r.length()) == ' ')) {
                return true;
            }
        }
        return false;
    }
}
