package io.github.deferlock.lock.internal;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Runs a lock script again after a connection error, which is what a pooled connection that the server
 * closed (a restart, an idle timeout) produces on first use. Only for scripts that are safe to repeat:
 * release and renew compare the token, and a resent release recognises its own earlier success. A failure
 * that took a long time (a read timeout: the server is slow or paused, a resend would only wait again) is
 * not retried. Stateless and threadsafe.
 */
final class Retry {
    /** Pauses before the retries: up to three more tries, one per dead pooled connection. */
    private static final long[] PAUSES_MS = {0, 20, 100};

    /** A failure slower than this is a timeout, not a dead pooled connection: no retry. */
    static final long QUICK_FAILURE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private Retry() {}

    /**
     * Runs {@code call}, and again (at most three more times) after a {@link JedisConnectionException} that
     * came quickly.
     *
     * @throws JedisConnectionException the last failure when no try succeeded
     */
    static <R> R onConnectionError(Supplier<R> call) {
        JedisConnectionException first = null;
        for (int i = 0; ; i++) {
            long start = System.nanoTime();
            try {
                return call.get();
            } catch (JedisConnectionException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
                if (i == PAUSES_MS.length || System.nanoTime() - start > QUICK_FAILURE_NANOS || !pause(PAUSES_MS[i])) {
                    throw first;
                }
            }
        }
    }

    private static boolean pause(long ms) {
        if (ms == 0) {
            return true;
        }
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
