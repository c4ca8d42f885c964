package io.github.deferlock.inspect;

import java.util.List;
import java.util.Objects;

/**
 * The held locks found under a prefix, sorted by name (when {@code more}, the first ones the scan met).
 * Immutable.
 *
 * @param prefix the lock key prefix
 * @param locks the locks found, at most the limit asked for
 * @param more whether more locks exist under the prefix than were returned
 */
public record LockPage(String prefix, List<LockView> locks, boolean more) {
    /** Validates the components and copies the list. */
    public LockPage {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        locks = List.copyOf(locks);
    }
}
