package io.github.deferlock.redis.internal;

import java.util.IdentityHashMap;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * One {@link NoticeBus} per client for listeners that have no common owner: the workers of different {@code
 * DelayQueue}s built on one client share one subscription connection, not one each (a default pool of 8
 * would otherwise run dry at 8 workers and hang every claim). A client's bus exists only while it has
 * listeners: the first watch builds it, the last closed subscription closes and forgets it, so nothing is
 * kept for a client nobody listens on. This table is the one process-wide state of the plumbing, and it
 * holds nothing while nobody listens; an owner that holds every listener of its client (a {@code RedisLocks})
 * builds its own {@link NoticeBus} instead. Threadsafe.
 */
public final class SharedNoticeBuses {
    // guarded by itself; an entry lives from its client's first listener to its last
    private static final Map<UnifiedJedis, Shared> BUSES = new IdentityHashMap<>();

    private SharedNoticeBuses() {}

    private static final class Shared {
        final NoticeBus bus;
        int listeners;

        Shared(NoticeBus bus) {
            this.bus = bus;
        }
    }

    /**
     * Calls {@code listener} for notices on {@code channel}, on the bus shared by every listener of {@code
     * redis}, until the returned subscription is closed (see {@link NoticeBus#watch}).
     *
     * @param threadName the subscription threads' name, used when this call builds the client's bus
     */
    public static NoticeBus.Subscription watch(
            UnifiedJedis redis, String threadName, byte[] channel, Runnable listener) {
        Require.notNull("redis", redis);
        Shared shared;
        NoticeBus.Subscription subscription;
        synchronized (BUSES) {
            shared = BUSES.computeIfAbsent(redis, r -> new Shared(new NoticeBus(Topology.of(r), threadName)));
            shared.listeners++;
            subscription = shared.bus.watch(channel, listener);
        }
        return new NoticeBus.Subscription() {
            private boolean closed; // guarded by BUSES

            @Override
            public void close() {
                NoticeBus last = null;
                synchronized (BUSES) {
                    if (closed) {
                        return;
                    }
                    closed = true;
                    subscription.close();
                    if (--shared.listeners == 0) {
                        BUSES.remove(redis, shared);
                        last = shared.bus;
                    }
                }
                if (last != null) {
                    last.close();
                }
            }
        };
    }

    /** For tests: how many clients have a shared bus now. */
    static int clients() {
        synchronized (BUSES) {
            return BUSES.size();
        }
    }
}
