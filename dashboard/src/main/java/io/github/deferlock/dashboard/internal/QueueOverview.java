package io.github.deferlock.dashboard.internal;

import io.github.deferlock.inspect.EntryKind;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.inspect.QueueStats;
import io.github.deferlock.inspect.RegistryEntry;
import io.github.deferlock.redis.internal.QueueKeyspace;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * Reads what the queue table and the charts show: every registered queue's counts (one script call each, from
 * the inspector) and its sequence counter (one {@code GET}, for the rate estimate of {@link RateSampler}), and
 * the registered lock prefixes. Threadsafe.
 */
public final class QueueOverview {

    /** One queue: its registry entry, its counts and its sequence counter (-1 when unreadable). */
    public record Row(RegistryEntry entry, QueueStats stats, long sequence) {
        /** The counts as the sampler takes them. */
        RateSampler.Counts counts() {
            return new RateSampler.Counts(
                    stats.queue(),
                    stats.waiting(),
                    stats.inFlight(),
                    stats.dead(),
                    stats.oldestDueAge().toMillis(),
                    sequence);
        }
    }

    /** The queues, sorted by name, and the lock prefixes in use. */
    public record Snapshot(List<Row> queues, List<String> lockPrefixes) {}

    private final Inspector inspector;
    private final UnifiedJedis redis;

    /** An overview read through {@code inspector}, and {@code redis} for the sequence counters. */
    public QueueOverview(Inspector inspector, UnifiedJedis redis) {
        this.inspector = inspector;
        this.redis = redis;
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
            rows.add(new Row(entry, stats, sequence(entry.name())));
        }
        rows.sort((a, b) -> a.entry().name().compareTo(b.entry().name()));
        return new Snapshot(rows, prefixes);
    }

    /** The sampler's input: every queue's counts. */
    public List<RateSampler.Counts> counts() {
        return read().queues().stream().map(Row::counts).toList();
    }

    private long sequence(String queue) {
        try {
            String value = redis.get(QueueKeyspace.prefix(queue) + "seq");
            return value == null ? 0 : Long.parseLong(value);
        } catch (RuntimeException e) {
            return -1; // no permission to read it, or not a number: the rates are unknown
        }
    }
}
