package io.github.deferlock.delay;

import com.fasterxml.jackson.core.type.TypeReference;
import io.github.deferlock.delay.internal.WakeBus;
import io.github.deferlock.redis.internal.Require;
import redis.clients.jedis.UnifiedJedis;

/**
 * The owner of the delay queues an application builds on one Jedis client: the workers of every queue built
 * through it share one notice bus, so they hold one pub/sub subscription connection between them (one per
 * master on a Redis 7+ cluster), not one per queue.
 *
 * <pre>{@code
 * try (RedisQueues queues = RedisQueues.on(redis)) {
 *     DelayQueue<Email> emails = queues.builder("emails", Email.class).build();
 *     DelayQueue<Invoice> invoices = queues.builder("invoices", Invoice.class).maxAttempts(5).build();
 *     ...
 * }
 * }</pre>
 *
 * <p>Use it when one client serves several queues with workers. A queue built with {@link
 * DelayQueue#builder(UnifiedJedis, String, Class)} has a notice bus of its own, which takes a connection from
 * the client's pool while any of that queue's workers runs: with as many such queues as the pool has
 * connections (8 in a default Jedis pool), the subscriptions hold them all and every other call waits for a
 * free connection.
 *
 * <p>The subscription connection is taken when the first worker starts and given back when the last one
 * closes. {@link #close()} ends it for good: close the workers first (a worker still running then falls back
 * to polling every {@code fallbackPoll}). The queues themselves hold no connection and stay usable for
 * enqueueing after {@code close()}; the client is not closed.
 *
 * <p>Threadsafe.
 */
public final class RedisQueues implements AutoCloseable {
    private final UnifiedJedis redis;
    private final WakeBus bus;

    private RedisQueues(UnifiedJedis redis) {
        this.redis = Require.notNull("redis", redis);
        String id = Integer.toHexString(System.identityHashCode(this));
        this.bus = WakeBus.shared(redis, "deferlock-queues-" + id + "-wake", "RedisQueues@" + id);
    }

    /**
     * The owner of queues on {@code redis}. Nothing is sent to Redis until a worker starts.
     *
     * @param redis the client (standalone, Sentinel or Cluster); closing this object does not close it
     * @throws NullPointerException when {@code redis} is null
     */
    public static RedisQueues on(UnifiedJedis redis) {
        return new RedisQueues(redis);
    }

    /**
     * Starts a builder for a queue of {@code type} payloads on this owner's client, whose workers use this
     * owner's notice bus; otherwise like {@link DelayQueue#builder(UnifiedJedis, String, Class)}.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the name breaks the queue name rule (docs/names.md)
     * @throws IllegalStateException when this owner was closed
     */
    public <T> DelayQueue.Builder<T> builder(String name, Class<T> type) {
        bus.requireOpen();
        return DelayQueue.builder(redis, bus, name, Require.notNull("type", type), null);
    }

    /**
     * Like {@link #builder(String, Class)} for a generic payload type, e.g. {@code new
     * TypeReference<List<Order>>() {}}.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the name breaks the queue name rule (docs/names.md)
     * @throws IllegalStateException when this owner was closed
     */
    public <T> DelayQueue.Builder<T> builder(String name, TypeReference<T> type) {
        bus.requireOpen();
        return DelayQueue.builder(redis, bus, name, null, Require.notNull("type", type));
    }

    /** The client the queues use. */
    public UnifiedJedis redis() {
        return redis;
    }

    /**
     * Ends the shared subscription. Afterwards no queue can be built through this owner and no worker of its
     * queues can start; workers still running keep working by their fallback poll. Idempotent.
     */
    @Override
    public void close() {
        bus.close();
    }

    @Override
    public String toString() {
        return "RedisQueues[" + redis + "]";
    }
}
