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

    /**
     * The last fencing token of the block a release notice said was granted to this engine's waiter
     * (release.lua) and the contender has not taken yet; 0 when none. Guarded by this.
     */
    private long offeredGrant;

    /**
     * The highest block end this engine got for the key (grants taken, grants passed on by leave.lua): a notice
     * at or below it is stale. Guarded by this.
     */
    private long knownFence;

    /** A notice said the key was granted to this engine's waiter with the block ending at {@code fence}. */
    synchronized void offerGrant(long fence) {
        if (fence > knownFence && fence > offeredGrant) {
            offeredGrant = fence;
        }
    }

    /** The grant a notice offered since the last call and above every block known, or 0; clears the offer. */
    synchronized long takeGrant() {
        long fence = offeredGrant;
        offeredGrant = 0;
        if (fence <= knownFence) {
            return 0;
        }
        knownFence = fence;
        return fence;
    }

    /** This engine got (or passed on) the block ending at {@code fence}: notices at or below it are stale. */
    synchronized void knownFence(long fence) {
        if (fence > knownFence) {
            knownFence = fence;
        }
        if (offeredGrant <= knownFence) {
            offeredGrant = 0;
        }
    }

    /** Forgets an offered grant (a new wait begins: a notice before it belongs to an earlier one). */
    synchronized void dropOfferedGrant() {
        offeredGrant = 0;
    }

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
