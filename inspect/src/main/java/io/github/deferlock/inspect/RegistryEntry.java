package io.github.deferlock.inspect;

import java.time.Instant;
import java.util.Objects;

/**
 * A queue, deferral queue or lock prefix that announced itself in the registry (docs/ops.md). Immutable.
 *
 * @param kind what it is
 * @param name the queue name, or the lock prefix (e.g. {@code lock:})
 * @param lastSeen when it last announced itself (the announcer's clock)
 */
public record RegistryEntry(EntryKind kind, String name, Instant lastSeen) {
    /** Validates the components. */
    public RegistryEntry {
        Objects.requireNonNull(kind, "kind cannot be null");
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(lastSeen, "lastSeen cannot be null");
    }
}
