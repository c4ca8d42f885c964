package io.github.deferlock.consumer.internal;

import java.util.concurrent.TimeUnit;

/**
 * Counts the messages a consumer's handlers run now, and lets {@code close} wait for them with a deadline (the
 * graceful drain). Threadsafe: the count is guarded by this object's monitor.
 */
public final class InFlight {
    private int running;

    /** A message starts. */
    public synchronized void enter() {
        running++;
    }

    /** A message is done (handled, dead-lettered or let go). */
    public synchronized void exit() {
        if (--running == 0) {
            notifyAll();
        }
    }

    /** How many run now. */
    public synchronized int running() {
        return running;
    }

    /**
     * Waits until none runs or {@code deadlineNanos} ({@link System#nanoTime()} based) passed.
     *
     * @return true when none runs; false at the deadline or on an interrupt (the flag stays set)
     */
    public synchronized boolean awaitIdle(long deadlineNanos) {
        while (running > 0) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
