package io.github.deferlock.micrometer;

import io.github.deferlock.lock.LockListener;
import io.github.deferlock.redis.internal.Require;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Optional;

/**
 * Meters over the locks of one {@code RedisLocks}: give it to {@code RedisLocks.Builder.listener} and bind it to
 * a registry ({@code metrics.bindTo(registry)}, or let Spring Boot bind it as a {@link MeterBinder} bean).
 *
 * <pre>{@code
 * LockMetrics metrics = new LockMetrics("orders:");
 * RedisLocks locks = RedisLocks.builder(redis).keyPrefix("orders:").listener(metrics).build();
 * metrics.bindTo(registry);
 * }</pre>
 *
 * <table>
 *   <caption>Meters, each tagged {@code prefix} (the lock key prefix given here)</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code deferlock.lock.acquired}</td><td>timer</td><td>acquisitions, by the time waited for them</td></tr>
 *   <tr><td>{@code deferlock.lock.conflicts}</td><td>counter</td><td>acquisitions that gave up: the lock stayed taken</td></tr>
 *   <tr><td>{@code deferlock.lock.held}</td><td>timer</td><td>releases, by how long the lock was held</td></tr>
 *   <tr><td>{@code deferlock.lock.lost}</td><td>counter</td><td>holds lost (renewal refused, lease ran out)</td></tr>
 * </table>
 *
 * <p>No meter is tagged with a lock name: the meter count is fixed whatever the number of locks. Events before
 * the first {@link #bindTo} are not recorded. Threadsafe.
 */
public final class LockMetrics implements LockListener, MeterBinder {

    private final BoundRegistries registries = new BoundRegistries();
    private final Timer acquired;
    private final Counter conflicts;
    private final Timer held;
    private final Counter lost;

    /** Meters tagged with {@code lockPrefix}, with {@link TimerOptions#DEFAULT}. */
    public LockMetrics(String lockPrefix) {
        this(lockPrefix, TimerOptions.DEFAULT);
    }

    /**
     * Meters tagged with {@code lockPrefix} (the {@code RedisLocks} key prefix: a low-cardinality tag).
     *
     * @throws NullPointerException when an argument is null
     */
    public LockMetrics(String lockPrefix, TimerOptions timers) {
        Require.notNull("lockPrefix", lockPrefix);
        Require.notNull("timers", timers);
        MeterRegistry r = registries.registry();
        Tags tags = Tags.of("prefix", lockPrefix);
        acquired = timers.apply(Timer.builder("deferlock.lock.acquired")
                        .description("Lock acquisitions, by the time waited for the lock")
                        .tags(tags))
                .register(r);
        conflicts = Counter.builder("deferlock.lock.conflicts")
                .description("Lock acquisitions that gave up because the lock stayed taken")
                .tags(tags)
                .register(r);
        held = timers.apply(Timer.builder("deferlock.lock.held")
                        .description("Lock releases, by how long the lock was held")
                        .tags(tags))
                .register(r);
        lost = Counter.builder("deferlock.lock.lost")
                .description("Lock holds lost: renewal refused or lease ran out before release")
                .tags(tags)
                .register(r);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        registries.add(registry);
    }

    @Override
    public void onAcquired(String key, long fencingToken, Duration waited) {
        acquired.record(waited);
    }

    @Override
    public void onConflict(String key, Optional<Duration> holderTtl) {
        conflicts.increment();
    }

    @Override
    public void onReleased(String key, Duration heldFor) {
        held.record(heldFor);
    }

    @Override
    public void onLost(String key, long fencingToken, Throwable cause) {
        lost.increment();
    }
}
