package io.github.deferlock.lock.internal;

import java.nio.charset.StandardCharsets;

/**
 * What one {@link LockEngine} knows about one key while anyone in this JVM holds or wants it: its Redis keys,
 * the {@link LocalGate}, the {@link HandOffChain}, the {@link ThreadBoundHold}, the {@link ReleaseSignal} and, for permits, the {@link PermitWaiters}.
 * Lives in the engine's {@link KeyStates} while it has users. Each part guards its own state; threadsafe.
 */
final class KeyState {
    final String name;
    final byte[] key;
    final byte[] fence;
    final byte[] lastRelease;
    final byte[] waiters;
    final byte[] waiterDeadlines;
    final byte[] waiterChannelPrefix;
    final byte[] parked;
    final String keyString;

    final LocalGate gate = new LocalGate();
    final HandOffChain handOff = new HandOffChain();
    final ThreadBoundHold threadHold = new ThreadBoundHold();
    final ReleaseSignal signal = new ReleaseSignal();
    final PermitWaiters permitWaiters = new PermitWaiters();

    /**
     * The hold with an explicit lease (not renewed) that has the gate, if any: a local contender refused by the
     * gate asks Redis whether it still holds its key ({@link LockEngine}), so a hold nobody released does not
     * block this JVM longer than Redis keeps its key.
     */
    volatile Hold leaseHolder;

    /** Acquisitions in progress plus holds; read and written only by {@link KeyStates} inside its map's compute. */
    private int users;

    KeyState(String name, byte[] key) {
        this.name = name;
        this.key = key;
        this.fence = Keys.fenceKey(key);
        this.lastRelease = Keys.lastReleaseKey(key);
        this.waiters = Keys.waitersKey(key);
        this.waiterDeadlines = Keys.waiterDeadlinesKey(key);
        this.waiterChannelPrefix = Keys.waiterChannelPrefix(key);
        this.parked = Keys.parkedKey(key);
        this.keyString = new String(key, StandardCharsets.UTF_8);
    }

    /** A notice on this JVM's waiter channel arrived, or the subscription changed: the contender should look again. */
    void signal() {
        signal.raise();
        permitWaiters.wakeFirst();
    }

    /** One more user; only {@link KeyStates}. */
    void addUser() {
        users++;
    }

    /** One user less; only {@link KeyStates}. Returns whether users remain. */
    boolean removeUser() {
        return --users > 0;
    }
}
