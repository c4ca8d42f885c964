package io.github.deferlock.lock.internal;

import java.time.Duration;
import java.util.Optional;

/**
 * The holder TTL of each thread's most recent acquisition, for the deprecated {@code
 * DistributedLock.lastHolderTtl()} only: the engine itself reports a conflict's details in its {@link
 * Outcome}. Threadsafe (one entry per thread).
 */
final class LastConflicts {
    private record Last(String name, Optional<Duration> holderTtl) {}

    private final ThreadLocal<Last> last = new ThreadLocal<>();

    /** Records the current thread's acquisition of {@code name}. */
    void record(String name, Outcome outcome) {
        if (outcome.hold() != null) {
            if (last.get() != null) {
                last.remove();
            }
        } else if (!outcome.reentered()) {
            last.set(new Last(name, outcome.holderTtl()));
        }
    }

    /** The holder TTL of the current thread's last acquisition of {@code name}, when that one failed. */
    Optional<Duration> holderTtl(String name) {
        Last l = last.get();
        return l != null && l.name().equals(name) ? l.holderTtl() : Optional.empty();
    }
}
