package io.github.deferlock.spring;

import java.util.Objects;

/**
 * What a {@link WithLock @WithLock(onConflict = DEFER)} method did: {@link #isDone() done} with a value, or
 * {@link #isDeferred() deferred} to run later. The method's body returns {@link #done(Object)}; the deferred
 * outcome is made by the lock interceptor only, so a caller cannot mistake one for the other.
 *
 * <pre>{@code
 * LockOutcome<Receipt> r = orders.apply(event);
 * if (r.isDeferred()) {
 *     return ResponseEntity.accepted().build();
 * }
 * return ResponseEntity.ok(r.value());
 * }</pre>
 *
 * <p>Immutable and threadsafe.
 *
 * @param <T> the value's type ({@link Void} for none)
 */
public final class LockOutcome<T> {

    private final boolean deferred;
    private final T value;
    private final String lockName;

    private LockOutcome(boolean deferred, T value, String lockName) {
        this.deferred = deferred;
        this.value = value;
        this.lockName = lockName;
    }

    /** The outcome of a body that ran under the lock; {@code value} may be null. */
    public static <T> LockOutcome<T> done(T value) {
        return new LockOutcome<>(false, value, null);
    }

    /** The outcome of a call stored for later; made by the lock interceptor. */
    static <T> LockOutcome<T> deferred(String lockName) {
        return new LockOutcome<>(true, null, Objects.requireNonNull(lockName, "lockName cannot be null"));
    }

    /** True when the body ran under the lock. */
    public boolean isDone() {
        return !deferred;
    }

    /** True when the lock was taken and the call was stored to run later, in whichever instance. */
    public boolean isDeferred() {
        return deferred;
    }

    /**
     * The body's result.
     *
     * @throws IllegalStateException when the call was deferred: it has no result yet
     */
    public T value() {
        if (deferred) {
            throw new IllegalStateException(
                    "the call was deferred (lock '" + lockName + "' was taken): it runs later and has no value");
        }
        return value;
    }

    /** The name of the lock that was taken, for a deferred outcome; null for a done one. */
    public String lockName() {
        return lockName;
    }

    @Override
    public String toString() {
        return deferred ? "LockOutcome[deferred, lock=" + lockName + "]" : "LockOutcome[done, value=" + value + "]";
    }
}
