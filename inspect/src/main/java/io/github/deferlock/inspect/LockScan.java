package io.github.deferlock.inspect;

import io.github.deferlock.inspect.internal.LockKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import redis.clients.jedis.ScanIteration;
import redis.clients.jedis.UnifiedJedis;

/**
 * One walk over the lock keys under a prefix ({@code SCAN MATCH <prefix>{*} TYPE string COUNT} {@value
 * #SCAN_COUNT}, on every master of a cluster) that can be spent in slices: {@link #step(int)} makes at most the
 * given number of {@code SCAN} calls and returns, so a caller bounds its Redis work per step whatever the size
 * of the keyspace, and finishes the walk over as many steps as it takes. Nothing is sent to Redis before the
 * first step. From {@link Inspector#lockScan}. Not threadsafe: one thread steps it.
 */
public final class LockScan {
    /** The {@code COUNT} hint of each {@code SCAN} call. */
    public static final int SCAN_COUNT = 1000;

    private final Inspector inspector;
    private final UnifiedJedis redis;
    private final String prefix;
    private final int limit;
    private final TreeMap<String, String> found = new TreeMap<>(); // name -> key
    private ScanIteration scan;
    private boolean more;
    private boolean done;
    private long scanCalls;

    LockScan(Inspector inspector, UnifiedJedis redis, String prefix, int limit) {
        this.inspector = inspector;
        this.redis = redis;
        this.prefix = prefix;
        this.limit = limit;
    }

    /**
     * Goes on with the walk for at most {@code maxScanCalls} {@code SCAN} calls.
     *
     * @return true when the walk is over: every key was seen, or more than the limit were found
     * @throws IllegalArgumentException when {@code maxScanCalls} is below 1
     * @throws InspectException when Redis fails (the walk may be stepped again)
     */
    public boolean step(int maxScanCalls) {
        if (maxScanCalls < 1) {
            throw new IllegalArgumentException("maxScanCalls must be at least 1, not " + maxScanCalls);
        }
        return Inspector.call("scan the locks under '" + prefix + "'", () -> {
            if (scan == null) {
                // no TYPE filter: a lock is a string, a permits name (RedisLocks.permits) a zset; the pattern
                // matches only keys that end with the name's '}', so no lock's side key is read
                scan = redis.scanIteration(SCAN_COUNT, LockKeys.scanPattern(prefix));
            }
            for (int calls = 0; calls < maxScanCalls && !done; calls++) {
                if (scan.isIterationCompleted()) {
                    done = true;
                    break;
                }
                scanCalls++;
                for (String key : scan.nextBatchList()) {
                    Optional<String> name = LockKeys.nameOf(prefix, key);
                    if (name.isPresent()) {
                        found.put(name.get(), key);
                        if (found.size() > limit) {
                            more = true;
                            done = true;
                            break;
                        }
                    }
                }
                done = done || scan.isIterationCompleted();
            }
            return done;
        });
    }

    /** Whether the walk is over. */
    public boolean done() {
        return done;
    }

    /** How many {@code SCAN} calls the walk has made so far. */
    public long scanCalls() {
        return scanCalls;
    }

    /** The prefix walked. */
    public String prefix() {
        return prefix;
    }

    /**
     * The held locks among the keys found so far, sorted by name, at most the limit: one read-only script call
     * per key found ({@code lock_info.lua}, which also reads the work parked behind the key: its count and the
     * park time of its head). Keys that vanished since are left out. {@link LockPage#more()} is
     * true when the walk met more lock keys than the limit.
     *
     * @throws InspectException when Redis fails
     */
    public LockPage read() {
        List<LockView> locks = new ArrayList<>();
        for (Map.Entry<String, String> e : found.entrySet()) {
            if (locks.size() == limit) {
                break;
            }
            LockView v = inspector.readLock(prefix, e.getKey(), e.getValue());
            if (v.held()) {
                locks.add(v);
            }
        }
        return new LockPage(prefix, locks, more);
    }
}
