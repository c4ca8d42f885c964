package io.github.deferlock.consumer.internal;

import io.github.deferlock.delay.Backoff;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Pauses every handler thread of one consumer while Redis is unreachable. The first thread that meets an
 * infrastructure failure {@linkplain #failed() closes} the gate for a backoff delay (100 ms doubling to 5 s while
 * the outage lasts); threads about to start a message {@linkplain #awaitOpen(BooleanSupplier) wait} until it
 * opens, so a Redis outage pauses consumption instead of spinning through messages. A call that reaches Redis
 * again {@linkplain #succeeded() resets} the backoff. Threadsafe: the state is guarded by this object's monitor.
 */
public final class OutageGate {
    /** The default wait while Redis is away: 100 ms doubling to 5 s, ±20 % jitter. */
    public static final Backoff DEFAULT_BACKOFF = Backoff.exponential(
                    Duration.ofMillis(100), Duration.ofSeconds(5), 2.0)
            .withJitter(0.2);

    private final Backoff backoff;
    private final Sleeper sleeper;
    private final LongSupplier nanoTime;
    private long closedUntil;
    private boolean closed;
    private int streak;

    /** A gate with the default backoff and the system clock. */
    public OutageGate() {
        this(DEFAULT_BACKOFF, Sleeper.SYSTEM, System::nanoTime);
    }

    /** A gate with the given backoff, sleeper and clock (tests). */
    public OutageGate(Backoff backoff, Sleeper sleeper, LongSupplier nanoTime) {
        this.backoff = backoff;
        this.sleeper = sleeper;
        this.nanoTime = nanoTime;
    }

    /**
     * Marks an infrastructure failure: closes the gate for the next backoff delay, unless it is closed already
     * (threads that failed together extend it once).
     *
     * @return how long the gate stays closed from now
     */
    public synchronized Duration failed() {
        long now = nanoTime.getAsLong();
        if (!closed || now - closedUntil >= 0) {
            streak = Math.min(streak + 1, 64);
            closedUntil = now + backoff.delay(streak).toNanos();
            closed = true;
        }
        return Duration.ofNanos(Math.max(0, closedUntil - now));
    }

    /** Marks a call that reached Redis: the next outage starts from the shortest delay again. */
    public synchronized void succeeded() {
        streak = 0;
        closed = false;
    }

    /** True while an outage is on (the gate closed and its delay not over). */
    public synchronized boolean isClosed() {
        return closed && nanoTime.getAsLong() - closedUntil < 0;
    }

    /**
     * Waits while the gate is closed, in slices of at most 50 ms so that {@code keepGoing} turning false (the
     * consumer closing, a partition revoked) ends the wait.
     *
     * @return false when {@code keepGoing} turned false or the thread was interrupted (the flag stays set)
     */
    public boolean awaitOpen(BooleanSupplier keepGoing) {
        while (true) {
            long until;
            synchronized (this) {
                if (!closed || nanoTime.getAsLong() - closedUntil >= 0) {
                    return keepGoing.getAsBoolean();
                }
                until = closedUntil;
            }
            if (!sleeper.sleepUntil(until, nanoTime, keepGoing)) {
                return false;
            }
        }
    }
}
