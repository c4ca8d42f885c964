package io.github.deferlock.lock.internal;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What one {@link LockEngine} knows about one key while anyone in this JVM holds or wants it: the local FIFO
 * gate (one permit: whoever has it is the only local contender or holder), the thread-bound hold, and the
 * signal the release-notice subscriber raises. Lives in the engine's map while {@code users > 0}.
 *
 * <p>Threadsafe as documented per field.
 */
final class KeyState {
    final String name;
    final byte[] key;
    final byte[] fence;
    final byte[] channel;
    final byte[] lastRelease;
    final String keyString;

    /** Fair: released permits go to the longest waiter, so local hand-off is FIFO. */
    final Semaphore gate = new Semaphore(1, true);

    /** Acquisitions in progress plus holds; guarded by the engine map's compute. */
    int users;

    /** The thread holding the lock thread-bound; written only by that thread while it has the gate. */
    volatile Thread owner;

    /** The thread-bound hold and its re-entry count; touched only by {@link #owner}. */
    Hold threadHold;

    int holdCount;

    /**
     * A hold handed off by a releasing local holder to whoever takes the gate next; taken (or released in
     * Redis) only by a thread that has the gate. It carries the user count of the hold it replaced.
     */
    private volatile Hold handed;

    private final ReentrantLock signalLock = new ReentrantLock();
    private final Condition signalled = signalLock.newCondition();
    private long signals;

    KeyState(String name, byte[] key) {
        this.name = name;
        this.key = key;
        this.fence = Keys.fenceKey(key);
        this.channel = Keys.channel(key);
        this.lastRelease = Keys.lastReleaseKey(key);
        this.keyString = new String(key, StandardCharsets.UTF_8);
    }

    /** Set when a release found another process waiting; the next local contender holds back once. */
    private volatile boolean yieldNext;

    void yieldNext() {
        yieldNext = true;
    }

    /** Whether the next contender should hold back; clears the request. */
    boolean takeYield() {
        if (!yieldNext) {
            return false;
        }
        yieldNext = false;
        return true;
    }

    void hand(Hold hold) {
        handed = hold;
    }

    /** The handed-off hold, if any, now the caller's; call with the gate. */
    Hold takeHanded() {
        Hold h = handed;
        if (h != null) {
            handed = null;
        }
        return h;
    }

    /** How many signals were raised so far; read before a request, pass to {@link #await}. */
    long signals() {
        signalLock.lock();
        try {
            return signals;
        } finally {
            signalLock.unlock();
        }
    }

    /** A release notice arrived, or the subscription changed: the contender should look again. */
    void signal() {
        signalLock.lock();
        try {
            signals++;
            signalled.signalAll();
        } finally {
            signalLock.unlock();
        }
    }

    /** Waits until a signal after {@code seen}, at most {@code nanos}. */
    void await(long seen, long nanos) throws InterruptedException {
        signalLock.lockInterruptibly();
        try {
            long left = nanos;
            while (signals == seen && left > 0) {
                left = signalled.awaitNanos(left);
            }
        } finally {
            signalLock.unlock();
        }
    }

    /** Waits for the gate up to {@code nanos}. */
    boolean enterGate(long nanos) throws InterruptedException {
        return gate.tryAcquire(nanos, TimeUnit.NANOSECONDS);
    }
}
