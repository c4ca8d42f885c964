package io.github.deferlock.conflict;

import java.util.List;

/**
 * What happens when a lock is already held by someone else. Three strategies, used like an enum ({@code
 * ==}, {@link #name()}, {@link #valueOf(String)}, {@link #values()}); the two that keep the caller's thread
 * until the lock is won or given up have the type {@link Blocking}, which is all {@link LockRunner} accepts,
 * so {@code runner.withLock(key, OnConflict.DEFER, body)} does not compile: DEFER needs a message to store
 * and lives in {@link ConflictAwareHandler}. Immutable; the three constants are the only instances.
 */
public abstract sealed class OnConflict permits OnConflict.Blocking, OnConflict.Deferring {

    /** Fail at once with a {@code LockConflictException}. */
    public static final Blocking THROW = new Blocking("THROW", 0);

    /**
     * Wait and retry, bounded by attempts and total wait ({@link SleepRetry}); then fail. The waits are the
     * lock's own, so a release of the lock (a release notice from another process, or a local unlock) ends
     * one at once.
     */
    public static final Blocking SLEEP_RETRY = new Blocking("SLEEP_RETRY", 1);

    /**
     * Store the request and run it later; the caller's thread moves on at once. By default ({@link
     * DeferMode#ORDERED}) it parks behind its key and runs right after the release, in the key's arrival order;
     * with {@link DeferMode#TIMED} it is retried after a backoff delay. See {@link Deferrals}.
     */
    public static final Deferring DEFER = new Deferring();

    private static final List<OnConflict> VALUES = List.of(THROW, SLEEP_RETRY, DEFER);

    private final String name;
    private final int ordinal;

    private OnConflict(String name, int ordinal) {
        this.name = name;
        this.ordinal = ordinal;
    }

    /** The strategy's name, as written in code: {@code THROW}, {@code SLEEP_RETRY} or {@code DEFER}. */
    public final String name() {
        return name;
    }

    /** The strategy's position in {@link #values()}. */
    public final int ordinal() {
        return ordinal;
    }

    /** The three strategies in declaration order. */
    public static OnConflict[] values() {
        return VALUES.toArray(new OnConflict[0]);
    }

    /**
     * The strategy named {@code name} (exactly, like {@link Enum#valueOf}).
     *
     * @throws NullPointerException when {@code name} is null
     * @throws IllegalArgumentException when no strategy has that name
     */
    public static OnConflict valueOf(String name) {
        if (name == null) {
            throw new NullPointerException("name cannot be null");
        }
        for (OnConflict s : VALUES) {
            if (s.name.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no OnConflict named '" + name + "': THROW, SLEEP_RETRY or DEFER");
    }

    @Override
    public final String toString() {
        return name;
    }

    /** {@link #THROW} and {@link #SLEEP_RETRY}: the caller's thread gets the lock or an exception. */
    public static final class Blocking extends OnConflict {
        private Blocking(String name, int ordinal) {
            super(name, ordinal);
        }
    }

    /** {@link #DEFER}: the request is stored and run later; only {@link ConflictAwareHandler} takes it. */
    public static final class Deferring extends OnConflict {
        private Deferring() {
            super("DEFER", 2);
        }
    }
}
