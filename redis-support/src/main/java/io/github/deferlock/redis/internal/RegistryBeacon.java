package io.github.deferlock.redis.internal;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Announces one queue, deferral queue or lock prefix in its {@link Registry}: {@link #touch} writes the entry
 * ({@code HSET}, one command, no script) at most once per {@link Registry#REFRESH}, so it can be called from
 * a hot path (a worker's loop, {@code RedisLocks.get}). It never throws: a failed write (Redis down, an ACL
 * without the registry key, a read-only replica) is logged at DEBUG and retried after the same interval; the
 * registry is a convenience for the ops tools, never a reason for a lock or a job to fail.
 *
 * <p>Threadsafe: concurrent callers agree on one writer per interval.
 */
public final class RegistryBeacon {
    private static final Logger LOG = LoggerFactory.getLogger(RegistryBeacon.class);

    private final Registry.Kind kind;
    private final LongSupplier wallMillis;
    private final LongSupplier nanos;
    private final long intervalNanos;
    private final AtomicLong nextNanos;

    /** A beacon for a delay queue, on the system clocks. */
    public static RegistryBeacon queue() {
        return new RegistryBeacon(Registry.Kind.QUEUE);
    }

    /** A beacon for {@code kind} on the system clocks. */
    public RegistryBeacon(Registry.Kind kind) {
        this(kind, System::currentTimeMillis, System::nanoTime);
    }

    /** A beacon on the given clocks (for tests): wall time for the stored value, nanos for the rate limit. */
    public RegistryBeacon(Registry.Kind kind, LongSupplier wallMillis, LongSupplier nanos) {
        this.kind = Objects.requireNonNull(kind, "kind cannot be null");
        this.wallMillis = Objects.requireNonNull(wallMillis, "wallMillis cannot be null");
        this.nanos = Objects.requireNonNull(nanos, "nanos cannot be null");
        this.intervalNanos = Registry.REFRESH.toNanos();
        this.nextNanos = new AtomicLong(nanos.getAsLong() - 1);
    }

    /**
     * Writes the entry of {@code name} (a queue name, or a lock prefix) unless this beacon wrote it less than
     * {@link Registry#REFRESH} ago.
     *
     * @return true when this call sent the write and it succeeded
     */
    public boolean touch(UnifiedJedis redis, String name) {
        long now = nanos.getAsLong();
        long next = nextNanos.get();
        if (now - next < 0 || !nextNanos.compareAndSet(next, now + intervalNanos)) {
            return false;
        }
        String key = Registry.key(kind, name);
        try {
            redis.hset(key, Registry.field(kind, name), Long.toString(wallMillis.getAsLong()));
            return true;
        } catch (RuntimeException e) {
            LOG.debug("could not announce {} '{}' in {}; retrying in {}", kind.code(), name, key, Registry.REFRESH, e);
            return false;
        }
    }
}
