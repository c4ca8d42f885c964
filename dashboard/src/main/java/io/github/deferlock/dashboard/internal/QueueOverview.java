package io.github.deferlock.dashboard.internal;

import io.github.deferlock.delay.QueueRateLimit;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.inspect.EntryKind;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.inspect.RegistryEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads what the queue table and the charts show: every registered queue's counts and counters (one script call
 * each, from the inspector; {@link RateSampler} makes rates of the counters, {@link HeldKeysPanel} reads the held
 * keys of the queues whose counts hold some) and rate limit (one {@code GET} each), and the registered lock
 * prefixes.
 * Threadsafe.
 */
public final class QueueOverview {

    /** One queue: its registry entry, its counts and its rate limit (null when it has none). */
    public record Row(RegistryEntry entry, QueueStats stats, QueueRateLimit rateLimit) {
        /** The counts as the sampler takes them. */
        RateSampler.Counts counts() {
            return new RateSampler.Counts(
                    stats.queue(),
                    stats.oldestDueAge().toMillis(),
                    stats.enqueued(),
                    stats.acked() + stats.deadLettered());
        }
    }

    /** The queues, sorted by name, and the lock prefixes in use. */
    public record Snapshot(List<Row> queues, List<String> lockPrefixes) {}

    private final Inspector inspector;

    /** An overview read through {@code inspector}. */
    public QueueOverview(Inspector inspector) {
        this.inspector = inspector;
    }

    /** Reads the registry and every queue in it. */
    public Snapshot read() {
        List<Row> rows = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        for (RegistryEntry entry : inspector.registered()) {
            if (entry.kind() == EntryKind.LOCK_PREFIX) {
                prefixes.add(entry.name());
                continue;
            }
            QueueStats stats = inspector.queueStats(entry.name());
            rows.add(new Row(entry, stats, inspector.rateLimit(entry.name()).orElse(null)));
        }
        rows.sort((a, b) -> a.entry().name().compareTo(b.entry().name()));
        return new Snapshot(rows, prefixes);
    }

    /** The sampler's input: every queue's counts in {@code snapshot}. */
    public static List<RateSampler.Counts> counts(Snapshot snapshot) {
        return snapshot.queues().stream().map(Row::counts).toList();
    }
}
