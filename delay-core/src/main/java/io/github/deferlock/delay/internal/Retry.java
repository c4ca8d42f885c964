package io.github.deferlock.delay.internal;

import java.util.function.Supplier;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Runs a Redis call again when it fails with a connection error, which is what a pooled connection that the
 * server closed while idle (or a restart) produces on first use. Only for calls that are safe to repeat.
 * Stateless and threadsafe.
 */
public final class Retry {
    private static final long[] PAUSES_MS = {0, 20, 100};

    private Retry() {}

    /**
     * Runs {@code call}, up to three more times after a {@link JedisConnectionException}.
     *
     * @throws JedisConnectionException the last failure when every try failed
     */
    public static <R> R onConnectionError(Supplier<R> call) {
        JedisConnectionException last = null;
        for (long pause : PAUSES_MS) {
            try {
                return call.get();
            } catch (JedisConnectionException e) {
                last = e;
                if (pause > 0 && !sleep(pause)) {
                    break;
                }
            }
        }
        try {
            return call.get();
        } catch (JedisConnectionException e) {
            if (last != null) {
                e.addSuppressed(last);
            }
            throw e;
        }
    }

    private static boolean sleep(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
