package io.github.deferlock.redis.internal;

import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.Pool;

/**
 * Script calls whose wait for a pooled connection is bounded per call, for callers that promised to return
 * within a time ({@code tryLock(wait)}). A {@code UnifiedJedis} borrows its connection with the pool's own
 * {@code maxWait}, which is forever by default: with the pool exhausted (by subscriptions that hold their
 * connections, or by the application's own use) such a call waited for good, whatever its caller's bound.
 *
 * <p>On a {@link RedisClient} (its pool is reachable) the connection is borrowed here, waiting at most the
 * given time but at least {@link #MIN_WAIT} (so a try-once call still gets a connection that a busy pool
 * frees within moments), and the script runs on it; a pool still exhausted then is a {@link
 * PoolExhaustedException} that names the pool's size and use. Other clients (Sentinel, Cluster) keep their
 * pool's own {@code maxWait}: Jedis exposes no per-call bound for them (set {@code maxWait} on their pool
 * config to bound it). Stateless.
 */
public final class BoundedBorrow {
    /** The shortest wait for a connection: what a try-once call is given. */
    public static final Duration MIN_WAIT = Duration.ofMillis(100);

    private static final long MIN_WAIT_NANOS = MIN_WAIT.toNanos();

    private BoundedBorrow() {}

    /**
     * Runs {@code script} as {@link Script#run(UnifiedJedis, List, List)} does, waiting for a pooled connection
     * at most {@code waitNanos} (at least {@link #MIN_WAIT}); a negative {@code waitNanos} waits as the client
     * does.
     *
     * @throws PoolExhaustedException when no connection came free in time
     * @throws JedisException as the client's own call would
     */
    public static Object run(Script script, UnifiedJedis redis, List<byte[]> keys, List<byte[]> args, long waitNanos) {
        if (waitNanos < 0 || !(redis instanceof RedisClient client)) {
            return script.run(redis, keys, args);
        }
        Pool<Connection> pool = client.getPool();
        Connection connection = borrow(pool, Math.max(waitNanos, MIN_WAIT_NANOS));
        try {
            return script.run(connection, keys, args);
        } finally {
            // borrowed from the pool itself, so the connection does not know its pool: hand it back here
            if (connection.isBroken()) {
                pool.returnBrokenResource(connection);
            } else {
                pool.returnResource(connection);
            }
        }
    }

    private static Connection borrow(Pool<Connection> pool, long waitNanos) {
        try {
            return pool.borrowObject(Duration.ofNanos(waitNanos));
        } catch (NoSuchElementException e) {
            if (e.getCause() != null) { // a new connection could not be activated or validated
                throw new JedisConnectionException("cannot get a connection from the pool: " + e.getMessage(), e);
            }
            throw new PoolExhaustedException(exhausted(pool, waitNanos), e);
        } catch (JedisException e) {
            throw e;
        } catch (Exception e) {
            throw new JedisConnectionException("cannot get a connection from the pool", e);
        }
    }

    /** The message of an exhausted pool: its size, how many are in use and waiting, and the usual cause. */
    static String exhausted(Pool<Connection> pool, long waitNanos) {
        return "no connection of the client's pool came free within " + TimeUnit.NANOSECONDS.toMillis(waitNanos)
                + " ms (pool size maxTotal=" + pool.getMaxTotal() + ", " + pool.getNumActive() + " in use, "
                + pool.getNumWaiters() + " other callers waiting); a pub/sub subscription holds a connection "
                + "for good (one per RedisLocks client and key prefix, one per RedisQueues or standalone "
                + "DelayQueue with running workers): raise maxTotal or share the owners (docs/locks.md, "
                + "\"Connections\")";
    }
}
