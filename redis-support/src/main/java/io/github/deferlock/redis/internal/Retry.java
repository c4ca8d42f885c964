package io.github.deferlock.redis.internal;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The one retry policy for calls that are safe to repeat. Two failures are retried:
 *
 * <ul>
 *   <li>a connection error, which is what a pooled connection that the server closed (a restart, an idle
 *       timeout) produces on first use: up to three more tries, after 0, 20 and 100 ms. With {@link
 *       #QUICK_CONNECTION_ERRORS} a failure that took long (a read timeout: the server is slow or paused, a
 *       resend would only wait again) is not retried;
 *   <li>a {@code LOADING} reply (a restarted server loading its data set answers every command so until it
 *       is done): tried again every {@link #LOADING_PAUSE_MS} ms for up to {@link #LOADING_BUDGET_MS} ms.
 * </ul>
 *
 * The last failure is thrown, the earlier ones suppressed in it. An interrupt during a pause ends the retries
 * (the interrupt flag stays set). Immutable and threadsafe.
 */
public final class Retry {
    /** Retries every connection error; for calls whose resend is recognised (replay records). */
    public static final Retry CONNECTION_ERRORS = new Retry(false, System::nanoTime);

    /** Retries only connection errors that came quickly: a slow failure is a timeout, not a dead connection. */
    public static final Retry QUICK_CONNECTION_ERRORS = new Retry(true, System::nanoTime);

    /** Pauses before the retries of a connection error: up to three more tries, one per dead pooled connection. */
    static final long[] PAUSES_MS = {0, 20, 100};

    /** A failure slower than this is a timeout, not a dead pooled connection. */
    public static final long QUICK_FAILURE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /** The pause between tries while the server answers {@code LOADING}. */
    public static final long LOADING_PAUSE_MS = 50;

    /** How long {@code LOADING} replies are waited out before the last one is thrown. */
    public static final long LOADING_BUDGET_MS = 10_000;

    private final boolean quickOnly;
    private final LongSupplier nanoTime;

    Retry(boolean quickOnly, LongSupplier nanoTime) {
        this.quickOnly = quickOnly;
        this.nanoTime = nanoTime;
    }

    /**
     * Runs {@code call}, and again after a connection error or a {@code LOADING} reply as described above.
     *
     * @throws JedisException the last failure when no try succeeded, or the first failure that is not retried
     */
    public <R> R call(Supplier<R> call) {
        JedisException first = null;
        int connectionRetries = 0;
        long loadingSince = 0;
        while (true) {
            long start = nanoTime.getAsLong();
            try {
                return call.get();
            } catch (JedisConnectionException e) {
                first = chain(first, e);
                boolean quick = nanoTime.getAsLong() - start <= QUICK_FAILURE_NANOS;
                if (connectionRetries == PAUSES_MS.length
                        || (quickOnly && !quick)
                        || !pause(PAUSES_MS[connectionRetries++])) {
                    throw first;
                }
            } catch (JedisDataException e) {
                if (!isLoading(e)) {
                    throw e;
                }
                first = chain(first, e);
                long now = nanoTime.getAsLong();
                if (loadingSince == 0) {
                    loadingSince = now;
                }
                if (now - loadingSince >= TimeUnit.MILLISECONDS.toNanos(LOADING_BUDGET_MS)
                        || !pause(LOADING_PAUSE_MS)) {
                    throw first;
                }
            }
        }
    }

    /** Whether {@code e} is a server's {@code LOADING} reply (it is loading its data set after a start). */
    public static boolean isLoading(Throwable e) {
        return e instanceof JedisDataException && String.valueOf(e.getMessage()).startsWith("LOADING");
    }

    private static JedisException chain(JedisException first, JedisException e) {
        if (first == null) {
            return e;
        }
        if (first.getSuppressed().length < 16) {
            first.addSuppressed(e);
        }
        return first;
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
