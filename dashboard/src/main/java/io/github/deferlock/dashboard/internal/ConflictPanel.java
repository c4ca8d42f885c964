package io.github.deferlock.dashboard.internal;

import io.github.deferlock.inspect.ConflictReport;
import io.github.deferlock.inspect.Inspector;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Conflicts panel's data (docs/dashboard.md, "The conflicts panel"): {@link Inspector#conflicts} for a
 * prefix, a number of minutes and a top-K, each within the panel's bounds, kept for {@value #FRESH_MS} ms so
 * that any number of readers costs Redis at most one read per distinct query per second, and at most {@value
 * #MAX_QUERIES} distinct queries are kept (the least recently read is dropped). One read is at most {@code 3 ×
 * minutes + top} commands ({@value #MAX_MINUTES} minutes, {@value #MAX_TOP} locks). Threadsafe: the cache is
 * guarded by this object's monitor; two readers of an expired query may both read Redis once.
 */
public final class ConflictPanel {
    /** How long a report is served from memory. */
    static final long FRESH_MS = 1000;
    /** Distinct (prefix, minutes, top) queries kept. */
    static final int MAX_QUERIES = 32;
    /** The most minutes one request reads. */
    public static final int MAX_MINUTES = Inspector.MAX_CONFLICT_MINUTES;
    /** The most locks one request shows. */
    public static final int MAX_TOP = 50;

    private record Query(String prefix, int minutes, int top) {}

    private record Cached(ConflictReport report, long atMillis) {}

    private final Inspector inspector;
    private final Clock clock;
    private final Map<Query, Cached> cache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Query, Cached> eldest) {
            return size() > MAX_QUERIES;
        }
    };

    /** A panel reading through {@code inspector}. */
    public ConflictPanel(Inspector inspector, Clock clock) {
        this.inspector = inspector;
        this.clock = clock;
    }

    /**
     * The report for {@code prefix} over {@code minutes} minutes, at most {@code top} locks; from memory when
     * read within the last second.
     *
     * @throws IllegalArgumentException when a bound is out of range or the prefix holds a brace
     */
    public ConflictReport report(String prefix, int minutes, int top) {
        if (top < 1 || top > MAX_TOP) {
            throw new IllegalArgumentException("top must be within [1, " + MAX_TOP + "], not " + top);
        }
        Query q = new Query(prefix, minutes, top);
        long now = clock.millis();
        synchronized (this) {
            Cached c = cache.get(q);
            if (c != null && now - c.atMillis() < FRESH_MS) {
                return c.report();
            }
        }
        ConflictReport r = inspector.conflicts(prefix, minutes, top);
        synchronized (this) {
            cache.put(q, new Cached(r, now));
        }
        return r;
    }
}
