package io.github.deferlock.redis.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;

/**
 * One {@link NoticeBus} per client and scope, shared by every owner that leases it: the {@code RedisLocks} built
 * on one client (and key prefix) hold one subscription connection between them, however many of them there
 * are, as the queues of one {@code RedisQueues} do. Without it each owner held a pooled connection of its own
 * for its subscription, and 8 owners on Jedis's default pool of 8 left no connection for commands: every call
 * then waited in the pool's borrow for good. The bus is created by the first lease and closed when the last
 * lease is closed. Threadsafe (one global monitor, taken only to lease and to return).
 */
public final class SharedNoticeBus {
    /** The client by identity (a client object never equals another) and the scope within it. */
    private record Key(IdentityOf client, String scope) {}

    private record IdentityOf(Object o) {
        @Override
        public boolean equals(Object other) {
            return other instanceof IdentityOf i && i.o == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(o);
        }
    }

    private static final class Entry {
        final NoticeBus bus;
        int leases;

        Entry(NoticeBus bus) {
            this.bus = bus;
        }
    }

    // guarded by BUSES
    private static final Map<Key, Entry> BUSES = new HashMap<>();

    private SharedNoticeBus() {}

    /** One owner's use of a shared bus; closing it returns the lease (the last one closes the bus). */
    public interface Lease extends AutoCloseable {
        /** The shared bus; its listeners are the leaseholder's to close. */
        NoticeBus bus();

        /** Returns the lease. Idempotent. */
        @Override
        void close();
    }

    /**
     * Leases the bus of {@code redis} and {@code scope}, creating it with {@code create} when no lease is open.
     *
     * @param scope what must match for two owners to share a bus (a lock key prefix: the bus's anchor channel
     *     lives under it, for ACL users limited to {@code &prefix*})
     */
    public static Lease lease(UnifiedJedis redis, String scope, Supplier<NoticeBus> create) {
        Key key = new Key(new IdentityOf(Require.notNull("redis", redis)), Require.notNull("scope", scope));
        Entry entry;
        synchronized (BUSES) {
            entry = BUSES.computeIfAbsent(key, k -> new Entry(create.get()));
            entry.leases++;
        }
        Entry leased = entry;
        return new Lease() {
            private boolean closed; // guarded by BUSES

            @Override
            public NoticeBus bus() {
                return leased.bus;
            }

            @Override
            public void close() {
                synchronized (BUSES) {
                    if (closed) {
                        return;
                    }
                    closed = true;
                    if (--leased.leases > 0) {
                        return;
                    }
                    BUSES.remove(key, leased);
                }
                leased.bus.close();
            }
        };
    }

    /** How many shared buses are open now (for tests). */
    static int open() {
        synchronized (BUSES) {
            return BUSES.size();
        }
    }
}
