package io.github.deferlock.shedlock;

import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.lock.RedisLocks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link ExtensibleLockProvider} on deferlock's fenced Redis lock, so an application that guards its
 * {@code @Scheduled} methods with {@code @SchedulerLock} switches with one bean:
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(RedisLocks locks) {
 *     return new DeferlockLockProvider(locks);
 * }
 * }</pre>
 *
 * <p>A ShedLock lock named {@code n} is deferlock's lock {@code locks.get(n)}: the same Redis key, the same
 * fencing counter, so code that takes {@code n} through deferlock directly excludes the scheduled task too.
 * Each acquisition gets a fencing token, larger than every earlier one of the name; the task reads it with
 * {@link #fencingToken()} and passes it to the resource it writes, which rejects a stale writer (ShedLock's
 * own Redis providers have no such token).
 *
 * <ul>
 *   <li>{@code lockAtMostFor} is the lease of the Redis key: it is not renewed, as ShedLock expects. deferlock's
 *       shortest lease is 30 ms; a shorter {@code lockAtMostFor} holds the key 30 ms in Redis, while the
 *       {@link SimpleLock} counts as expired at {@code lockAtMostUntil} ({@code extend} then returns empty and
 *       frees the key).
 *   <li>{@code lockAtLeastFor}: {@code unlock} before {@code lockAtLeastUntil} leaves the key held until then
 *       ({@link LockLease#releaseAfter}), so no other process runs the task again sooner.
 *   <li>{@code extend} sets a new lease on the same hold (compare-and-{@code PEXPIRE}); the old
 *       {@link SimpleLock} is then spent: its {@code unlock} and {@code extend} throw
 *       {@link IllegalStateException}, as ShedLock's contract asks.
 *   <li>Lock names follow deferlock's rule for lock names (docs/names.md): a name it refuses gets an
 *       {@link IllegalArgumentException} naming it.
 *   <li>A Redis that cannot be reached while locking is a {@link LockException} (ShedLock then skips the run and
 *       logs it); while unlocking, the key expires with its lease and the error is logged, not thrown.
 * </ul>
 *
 * <p>Threadsafe. The {@link RedisLocks} stays the caller's to close.
 */
public final class DeferlockLockProvider implements ExtensibleLockProvider {
    private static final Logger LOG = LoggerFactory.getLogger(DeferlockLockProvider.class);

    /** deferlock's shortest lease (30 ms); a shorter {@code lockAtMostFor} holds the key this long. */
    static final Duration MIN_LEASE = Duration.ofMillis(30);

    private final RedisLocks locks;
    private final ThreadLocal<Deque<Held>> held = ThreadLocal.withInitial(ArrayDeque::new);

    /**
     * A provider over {@code locks}.
     *
     * @param locks the locks to take; built with the key prefix the application's other deferlock code uses
     * @throws NullPointerException when {@code locks} is null
     */
    public DeferlockLockProvider(RedisLocks locks) {
        this.locks = Objects.requireNonNull(locks, "locks cannot be null");
    }

    /**
     * Takes the lock of {@code configuration.getName()} if it is free, without waiting.
     *
     * @return the lock, or empty when another holder has it (or keeps it for its {@code lockAtLeastFor})
     * @throws IllegalArgumentException when the name breaks deferlock's rule for lock names
     * @throws LockException when Redis cannot be reached
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Duration lease = max(configuration.getLockAtMostFor(), MIN_LEASE);
        Optional<LockLease> lease0 = locks.get(configuration.getName()).tryAcquire(Duration.ZERO, lease);
        return lease0.map(l -> new Held(
                configuration.getName(), l, configuration.getLockAtMostUntil(), configuration.getLockAtLeastUntil()));
    }

    /**
     * The fencing token of the innermost lock this thread took through this provider and has not unlocked:
     * during a task that ShedLock's executor runs (it locks, runs and unlocks on one thread).
     *
     * @return the token, or empty when this thread holds no lock of this provider
     */
    public OptionalLong fencingToken() {
        Held h = held.get().peek();
        return h == null ? OptionalLong.empty() : OptionalLong.of(h.lease.fencingToken());
    }

    @Override
    public String toString() {
        return "DeferlockLockProvider[" + locks + "]";
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** One ShedLock lock over one deferlock hold; spent by its unlock or extend. */
    private final class Held implements SimpleLock {
        private final String name;
        private final LockLease lease;
        private final Instant atMostUntil;
        private final Instant atLeastUntil;
        private final AtomicBoolean spent = new AtomicBoolean();

        Held(String name, LockLease lease, Instant atMostUntil, Instant atLeastUntil) {
            this.name = name;
            this.lease = lease;
            this.atMostUntil = atMostUntil;
            this.atLeastUntil = atLeastUntil;
            held.get().push(this);
        }

        private void spend(String what) {
            if (!spent.compareAndSet(false, true)) {
                throw new IllegalStateException("lock '" + name + "' was already unlocked or extended; cannot " + what);
            }
            held.get().remove(this);
        }

        @Override
        public void unlock() {
            spend("unlock");
            Duration keep = Duration.between(ClockProvider.now(), atLeastUntil);
            if (keep.toMillis() < 1) {
                // under a millisecond left (ShedLock's clock may be coarser than the configuration's instants):
                // a plain release, not a key kept for a rounded-up 1 ms
                keep = Duration.ZERO;
            }
            try {
                lease.releaseAfter(keep);
            } catch (LockLostException e) {
                LOG.debug("lock '{}' had expired before its unlock (lockAtMostFor passed)", name);
            } catch (LockException e) {
                LOG.warn("cannot unlock '{}'; its key expires with its lease: {}", name, e.getMessage());
            }
        }

        @Override
        public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            spend("extend");
            Instant now = ClockProvider.now();
            if (!now.isBefore(atMostUntil)) {
                freeQuietly();
                return Optional.empty();
            }
            if (!lease.extend(max(lockAtMostFor, MIN_LEASE))) {
                return Optional.empty();
            }
            return Optional.of(new Held(name, lease, now.plus(lockAtMostFor), now.plus(lockAtLeastFor)));
        }

        /** A lock past its lockAtMostUntil: the key goes now if Redis still holds it for us. */
        private void freeQuietly() {
            try {
                lease.release();
            } catch (LockException e) {
                LOG.debug("lock '{}' was already gone when it expired", name, e);
            }
        }

        @Override
        public String toString() {
            return "DeferlockLockProvider.Lock[" + name + ", fencing token " + lease.fencingToken() + "]";
        }
    }
}
