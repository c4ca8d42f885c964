package io.github.deferlock.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The registry through which queues, deferral queues and lock prefixes announce themselves, so the ops tools
 * list them without {@code SCAN} (docs/names.md, "Registry"). It is one Redis hash per key prefix, so it
 * lives under the ACL pattern the announcer already has and is one key (one cluster slot):
 *
 * <ul>
 *   <li>{@code deferlock:registry} for queues and deferral queues (fields {@code queue:<name>} and {@code
 *       deferrals:<name>});
 *   <li>{@code <lock prefix>registry} for a lock prefix (field {@code lock-prefix:<prefix>}); no lock key can
 *       equal it, since every lock key has a <code>'{'</code> right after the prefix.
 * </ul>
 *
 * Each field's value is the announcer's wall-clock time in epoch milliseconds when it last announced
 * itself. Readers drop (and delete) entries older than their staleness limit. Stateless.
 */
public final class Registry {

    /** The registry of queues and deferral queues. */
    public static final String QUEUE_REGISTRY = "deferlock:registry";

    /** The suffix of a lock prefix's registry key: {@code <prefix>registry}. */
    public static final String LOCK_REGISTRY_SUFFIX = "registry";

    /** How often a running announcer refreshes its entry at most. */
    public static final Duration REFRESH = Duration.ofSeconds(30);

    private Registry() {}

    /** What announces itself. */
    public enum Kind {
        /** A delay queue (announced by its workers). */
        QUEUE("queue"),
        /** The delay queue of a {@code Deferrals} (announced by its builder and, as a queue, by its worker). */
        DEFERRALS("deferrals"),
        /** A lock key prefix (announced by {@code RedisLocks}). */
        LOCK_PREFIX("lock-prefix");

        private final String code;

        Kind(String code) {
            this.code = code;
        }

        /** The field prefix: {@code queue}, {@code deferrals} or {@code lock-prefix}. */
        public String code() {
            return code;
        }
    }

    /** One announced thing as stored: its kind, name and the time it was last seen (epoch ms). */
    public record Entry(Kind kind, String name, long lastSeenMillis) {
        /** Validates the components. */
        public Entry {
            Objects.requireNonNull(kind, "kind cannot be null");
            Objects.requireNonNull(name, "name cannot be null");
        }
    }

    /** The key of the registry {@code kind} announces into, for a queue name or a lock prefix. */
    public static String key(Kind kind, String name) {
        Objects.requireNonNull(kind, "kind cannot be null");
        Objects.requireNonNull(name, "name cannot be null");
        return kind == Kind.LOCK_PREFIX ? lockRegistry(name) : QUEUE_REGISTRY;
    }

    /** The registry key of lock prefix {@code prefix}. */
    public static String lockRegistry(String prefix) {
        return Objects.requireNonNull(prefix, "prefix cannot be null") + LOCK_REGISTRY_SUFFIX;
    }

    /** The hash field of one announcer: {@code <kind code>:<name>}. */
    public static String field(Kind kind, String name) {
        return kind.code() + ":" + Objects.requireNonNull(name, "name cannot be null");
    }

    /**
     * Reads one stored field and value back; empty for a field or value this version does not know (a newer
     * writer's kind, or anything else found in the hash), which readers skip.
     */
    public static Optional<Entry> parse(byte[] field, byte[] value) {
        String f = new String(field, StandardCharsets.UTF_8);
        String v = new String(value, StandardCharsets.UTF_8);
        int colon = f.indexOf(':');
        if (colon < 0) {
            return Optional.empty();
        }
        String code = f.substring(0, colon);
        long seen;
        try {
            seen = Long.parseLong(v);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        for (Kind k : Kind.values()) {
            if (k.code.equals(code)) {
                return Optional.of(new Entry(k, f.substring(colon + 1), seen));
            }
        }
        return Optional.empty();
    }
}
