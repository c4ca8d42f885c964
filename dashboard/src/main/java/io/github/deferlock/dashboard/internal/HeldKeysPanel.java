package io.github.deferlock.dashboard.internal;

import io.github.deferlock.inspect.InspectException;
import io.github.deferlock.inspect.Inspector;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The concurrency keys the queue table shows under a queue's Held count (docs/dashboard.md, "Held concurrency
 * keys"), kept so that no request makes Redis work for them. The dashboard's background thread ({@link #tick})
 * gets the queues' stats it read anyway and reads {@link Inspector#heldKeys} (the most held keys, at most {@value
 * #MAX_KEYS}) only for queues whose {@code held} count is above zero, at most {@code maxQueues} of them per tick,
 * taking turns by name when more have held jobs. A queue with no held job costs nothing and its keys are
 * forgotten at once. A request ({@link #view}) reads memory only.
 *
 * <p>Threadsafe: the views are in a concurrent map; {@link #tick} is called by one thread.
 */
public final class HeldKeysPanel {

    /** The most keys read and shown per queue. */
    public static final int MAX_KEYS = 10;

    /** A queue's most held keys, most first, as read at {@code readAtMillis}. */
    public record View(List<Inspector.HeldKey> keys, long readAtMillis) {}

    private final Inspector inspector;
    private final int maxQueues;
    private final LongSupplier clock;
    private final Map<String, View> views = new ConcurrentHashMap<>();
    private String last = ""; // the last queue read: the next tick starts after it; ticking thread only

    /**
     * A panel reading through {@code inspector}.
     *
     * @param maxQueues most queues whose held keys one tick reads
     */
    public HeldKeysPanel(Inspector inspector, int maxQueues, LongSupplier clock) {
        this.inspector = inspector;
        this.maxQueues = maxQueues;
        this.clock = clock;
    }

    /** The last read of {@code queue}'s held keys, or null when none was read (or it has none held). */
    public View view(String queue) {
        return views.get(queue);
    }

    /**
     * Reads the held keys of at most {@code maxQueues} of the queues whose stats count held jobs, starting after
     * the one the previous tick read last, and forgets the others' keys when they have none held. Called by one
     * thread.
     *
     * @param rows every queue, sorted by name, with the stats read this tick
     * @return the queues read
     * @throws InspectException when Redis failed for a queue (after the others had their turn)
     */
    public int tick(List<QueueOverview.Row> rows) {
        List<String> holding = new ArrayList<>();
        for (QueueOverview.Row row : rows) {
            if (row.stats().held() > 0) {
                holding.add(row.entry().name());
            }
        }
        Set<String> keep = new HashSet<>(holding);
        views.keySet().retainAll(keep);
        if (holding.isEmpty()) {
            return 0;
        }
        int start = 0;
        while (start < holding.size() && holding.get(start).compareTo(last) <= 0) {
            start++;
        }
        int turns = Math.min(maxQueues, holding.size());
        InspectException failed = null;
        for (int i = 0; i < turns; i++) {
            String queue = holding.get((start + i) % holding.size());
            last = queue;
            try {
                views.put(queue, new View(inspector.heldKeys(queue, MAX_KEYS), clock.getAsLong()));
            } catch (InspectException e) { // the last view stays; the other queues go on
                failed = e;
            }
        }
        if (failed != null) {
            throw failed;
        }
        return turns;
    }
}
