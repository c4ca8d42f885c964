package io.github.deferlock.dashboard.internal;

import io.github.deferlock.inspect.InspectException;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.inspect.LockPage;
import io.github.deferlock.inspect.LockScan;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What the locks panel shows, kept so that no request makes Redis work. A request ({@link #view}) only reads the
 * last complete walk of its prefix and asks for the prefix to be watched; the dashboard's background thread
 * ({@link #tick}) walks the watched prefixes with {@link LockScan}, spending at most {@code budget} {@code SCAN}
 * calls per tick in all (split between the prefixes, at least one each), and reads the held locks (one script
 * call per lock key found, at most the limit) when a walk ends. So the Redis work is the budget per refresh
 * interval, whatever the number of readers, and a walk over a large keyspace takes more ticks instead of more
 * work per tick. At most {@code maxPrefixes} prefixes are watched; one nobody asked for over {@code idleMillis}
 * is dropped. The monitor guards the watches; walks run outside it, on the ticking thread only.
 */
public final class LockPanel {

    /** What a request gets: the last complete walk (null before the first), when it ended, what it cost. */
    public record View(String prefix, LockPage page, long scannedAtMillis, long scanCalls) {}

    private static final class Watch {
        final String prefix;
        LockScan scan; // the walk under way; touched by the ticking thread only
        LockPage last;
        long scannedAt = -1;
        long lastScanCalls;
        long askedAt;

        Watch(String prefix, LockScan scan, long askedAt) {
            this.prefix = prefix;
            this.scan = scan;
            this.askedAt = askedAt;
        }
    }

    private final Inspector inspector;
    private final int budget;
    private final int limit;
    private final int maxPrefixes;
    private final long idleMillis;
    private final LongSupplier clock;
    private final Map<String, Watch> watches = new LinkedHashMap<>(); // guarded by this

    /**
     * A panel reading through {@code inspector}.
     *
     * @param budget {@code SCAN} calls per tick in all
     * @param limit most locks per prefix
     */
    public LockPanel(Inspector inspector, int budget, int limit, int maxPrefixes, long idleMillis, LongSupplier clock) {
        this.inspector = inspector;
        this.budget = budget;
        this.limit = limit;
        this.maxPrefixes = maxPrefixes;
        this.idleMillis = idleMillis;
        this.clock = clock;
    }

    /**
     * The last complete walk of {@code prefix}, and from now on the prefix is watched. No Redis call.
     *
     * @throws IllegalArgumentException when the prefix holds a brace
     * @throws HttpError 429 when {@code maxPrefixes} other prefixes are watched and asked for
     */
    public synchronized View view(String prefix) {
        long now = clock.getAsLong();
        Watch w = watches.get(prefix);
        if (w == null) {
            LockScan scan = inspector.lockScan(prefix, limit); // checks the prefix; sends nothing
            dropIdle(now);
            if (watches.size() >= maxPrefixes) {
                throw new HttpError(
                        429,
                        "the dashboard watches at most " + maxPrefixes + " lock prefixes at once (" + watches.keySet()
                                + "); one nobody looks at for " + idleMillis / 1000 + " s is dropped");
            }
            w = new Watch(prefix, scan, now);
            watches.put(prefix, w);
        }
        w.askedAt = now;
        return new View(prefix, w.last, w.scannedAt, w.lastScanCalls);
    }

    private void dropIdle(long now) {
        watches.values().removeIf(w -> now - w.askedAt > idleMillis);
    }

    /**
     * Spends at most the budget of {@code SCAN} calls on the watched prefixes (at least one each), and
     * publishes every walk that ends. Called by one thread.
     *
     * @return the {@code SCAN} calls made
     * @throws InspectException when Redis failed for a prefix (after the others had their turn; that walk
     *     starts over)
     */
    public long tick() {
        List<Watch> active;
        synchronized (this) {
            dropIdle(clock.getAsLong());
            active = new ArrayList<>(watches.values());
        }
        if (active.isEmpty()) {
            return 0;
        }
        int share = Math.max(1, budget / active.size());
        long calls = 0;
        InspectException failed = null;
        for (Watch w : active) {
            LockScan scan = w.scan;
            long before = scan.scanCalls();
            try {
                if (scan.step(share)) {
                    LockPage page = scan.read();
                    synchronized (this) {
                        w.last = page;
                        w.scannedAt = clock.getAsLong();
                        w.lastScanCalls = scan.scanCalls();
                        w.scan = inspector.lockScan(w.prefix, limit);
                    }
                }
            } catch (InspectException e) { // this walk starts again next tick; the other prefixes go on
                w.scan = inspector.lockScan(w.prefix, limit);
                failed = e;
            }
            calls += scan.scanCalls() - before;
        }
        if (failed != null) {
            throw failed;
        }
        return calls;
    }
}
