package io.github.deferlock.micrometer;

import io.github.deferlock.conflict.ConflictListener;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.redis.internal.Require;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Meters over what the conflict strategies do: give it to {@code LockRunner.Builder.listener} or {@code
 * ConflictAwareHandler.Builder.listener} and bind it to a registry.
 *
 * <pre>{@code
 * ConflictMetrics metrics = new ConflictMetrics("order-events");
 * ConflictAwareHandler<OrderEvent> h = ConflictAwareHandler.builder("order-events", OrderEvent.class, locks)
 *         .listener(metrics)...build();
 * metrics.bindTo(registry);
 * }</pre>
 *
 * <table>
 *   <caption>Meters, each tagged {@code name} (given here: a handler or runner name)</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code deferlock.conflict.acquired}</td><td>timer</td><td>locks taken, by the time waited (retries included)</td></tr>
 *   <tr><td>{@code deferlock.conflict.conflicts}</td><td>counter, tag {@code strategy}</td><td>conflicts seen, by strategy ({@code throw}, {@code sleep_retry}, {@code defer})</td></tr>
 *   <tr><td>{@code deferlock.conflict.retries}</td><td>counter</td><td>SLEEP_RETRY sleeps before another try</td></tr>
 *   <tr><td>{@code deferlock.conflict.deferrals}</td><td>counter</td><td>DEFER stored (or stored again) a message</td></tr>
 *   <tr><td>{@code deferlock.conflict.dead.letters}</td><td>counter</td><td>deferred messages dead-lettered</td></tr>
 *   <tr><td>{@code deferlock.conflict.processed}</td><td>timer</td><td>critical sections run, by time held</td></tr>
 *   <tr><td>{@code deferlock.conflict.lost}</td><td>counter</td><td>locks lost while the critical section ran</td></tr>
 *   <tr><td>{@code deferlock.conflict.duplicates}</td><td>counter</td><td>redeliveries skipped (id already processed)</td></tr>
 * </table>
 *
 * <p>No meter is tagged with a lock key or message id. Threadsafe.
 */
public final class ConflictMetrics implements ConflictListener, MeterBinder {

    private final BoundRegistries registries = new BoundRegistries();
    private final Timer acquired;
    private final Map<OnConflict, Counter> conflicts = new HashMap<>();
    private final Counter retries;
    private final Counter deferrals;
    private final Counter deadLetters;
    private final Timer processed;
    private final Counter lost;
    private final Counter duplicates;

    /** Meters tagged with {@code name}, with {@link TimerOptions#DEFAULT}. */
    public ConflictMetrics(String name) {
        this(name, TimerOptions.DEFAULT);
    }

    /**
     * Meters tagged with {@code name} (a handler or runner name: a low-cardinality tag).
     *
     * @throws NullPointerException when an argument is null
     */
    public ConflictMetrics(String name, TimerOptions timers) {
        Require.notNull("name", name);
        Require.notNull("timers", timers);
        MeterRegistry r = registries.registry();
        Tags tags = Tags.of("name", name);
        acquired = timers.apply(Timer.builder("deferlock.conflict.acquired")
                        .description("Locks taken by a conflict strategy, by the time waited")
                        .tags(tags))
                .register(r);
        for (OnConflict s : OnConflict.values()) {
            conflicts.put(
                    s,
                    Counter.builder("deferlock.conflict.conflicts")
                            .description("Lock conflicts, by the strategy applied")
                            .tags(tags)
                            .tag("strategy", s.name().toLowerCase(Locale.ROOT))
                            .register(r));
        }
        retries = counter(r, "deferlock.conflict.retries", "SLEEP_RETRY sleeps before another try", tags);
        deferrals = counter(r, "deferlock.conflict.deferrals", "Messages stored (again) by DEFER", tags);
        deadLetters = counter(r, "deferlock.conflict.dead.letters", "Deferred messages dead-lettered", tags);
        processed = timers.apply(Timer.builder("deferlock.conflict.processed")
                        .description("Critical sections run under the lock, by time held")
                        .tags(tags))
                .register(r);
        lost = counter(r, "deferlock.conflict.lost", "Locks lost while the critical section ran", tags);
        duplicates = counter(r, "deferlock.conflict.duplicates", "Redeliveries skipped: id already processed", tags);
    }

    private static Counter counter(MeterRegistry r, String name, String description, Tags tags) {
        return Counter.builder(name).description(description).tags(tags).register(r);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        registries.add(registry);
    }

    @Override
    public void onAcquired(String key, Duration waited) {
        acquired.record(waited);
    }

    @Override
    public void onConflict(String key, OnConflict strategy, Optional<Duration> holderTtl) {
        conflicts.get(strategy).increment();
    }

    @Override
    public void onRetried(String key, int nextAttempt, Duration delay) {
        retries.increment();
    }

    @Override
    public void onDeferred(String key, int deferralCount, Duration delay) {
        deferrals.increment();
    }

    @Override
    public void onDeadLettered(String key, String reason) {
        deadLetters.increment();
    }

    @Override
    public void onProcessed(String key, Duration held) {
        processed.record(held);
    }

    @Override
    public void onLockLost(String key, long fencingToken) {
        lost.increment();
    }

    @Override
    public void onDuplicateSkipped(String key, String messageId) {
        duplicates.increment();
    }
}
