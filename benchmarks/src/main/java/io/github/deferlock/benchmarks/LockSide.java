package io.github.deferlock.benchmarks;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * One contender of the lock benchmarks: a client plus a way to lock and unlock a key. {@link #lock(String)} is
 * called once per thread and key; the returned {@link Cycle} is used by that thread only.
 */
interface LockSide extends AutoCloseable {

    /** The lease bare-Jedis sides set on their keys (deferlock and Redisson use their watchdogs). */
    long LEASE_MILLIS = 30_000;

    /** A per-thread handle on one key. */
    interface Cycle {
        void lock() throws InterruptedException;

        void unlock();
    }

    Cycle lock(String key);

    @Override
    void close();

    /** The sides of {@code lock.uncontended.*}. */
    List<String> UNCONTENDED = List.of("deferlock", "raw", "redisson");

    /** Opens a side by its results.json name; "raw" means bare Jedis and "fair-jvm" a fair ReentrantLock. */
    static LockSide open(String side, Redis redis) {
        return switch (side) {
            case "deferlock" -> new Deferlock(redis);
            case "raw" -> new BareJedis(redis, false);
            case "seed" -> new BareJedis(redis, true);
            case "redisson" -> new RedissonLock(redis);
            case "fair-jvm" -> new FairJvm();
            default -> throw new IllegalArgumentException("unknown lock side " + side);
        };
    }

    /** deferlock with its defaults: 30 s lease renewed by the watchdog, local FIFO hand-off, release notices. */
    final class Deferlock implements LockSide {
        private final RedisClient client;
        private final RedisLocks locks;

        Deferlock(Redis redis) {
            client = redis.jedis();
            locks = RedisLocks.builder(client).keyPrefix("lock:").build();
        }

        @Override
        public Cycle lock(String key) {
            DistributedLock lock = locks.get(key);
            return new Cycle() {
                @Override
                public void lock() {
                    lock.lock();
                }

                @Override
                public void unlock() {
                    lock.unlock();
                }
            };
        }

        @Override
        public void close() {
            locks.close();
            client.close();
        }
    }

    /**
     * Bare Jedis: {@code SET key token NX PX 30000}, released by EVALSHA compare-and-delete. As "raw" it never
     * meets a held key (uncontended: the ceiling of a lock cycle); as "seed" it is the seed articles' spin lock:
     * on failure it sleeps 1 ms and tries again.
     */
    final class BareJedis implements LockSide {
        static final String RELEASE =
                "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
        private final RedisClient client;
        private final String sha;
        private final boolean spin;

        BareJedis(Redis redis, boolean spin) {
            this.client = redis.jedis();
            this.sha = client.scriptLoad(RELEASE);
            this.spin = spin;
        }

        @Override
        public Cycle lock(String key) {
            String k = (spin ? "seed:" : "raw:") + key;
            SetParams params = SetParams.setParams().nx().px(LEASE_MILLIS);
            return new Cycle() {
                private String token;

                @Override
                public void lock() throws InterruptedException {
                    String t = UUID.randomUUID().toString();
                    while (!"OK".equals(client.set(k, t, params))) {
                        if (!spin) {
                            Thread.onSpinWait();
                        } else {
                            Thread.sleep(1);
                        }
                    }
                    token = t;
                }

                @Override
                public void unlock() {
                    client.evalsha(sha, List.of(k), List.of(token));
                }
            };
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** Redisson's {@code RLock} with its defaults: {@code lock()} (watchdog, 30 s) and {@code unlock()}. */
    final class RedissonLock implements LockSide {
        private final RedissonClient redisson;

        RedissonLock(Redis redis) {
            redisson = redis.redisson();
        }

        @Override
        public Cycle lock(String key) {
            RLock lock = redisson.getLock("redisson:" + key);
            return new Cycle() {
                @Override
                public void lock() {
                    lock.lock();
                }

                @Override
                public void unlock() {
                    lock.unlock();
                }
            };
        }

        @Override
        public void close() {
            redisson.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /** The hold-bound limit: an in-process fair {@link ReentrantLock} per key, no Redis at all. */
    final class FairJvm implements LockSide {
        private final java.util.concurrent.ConcurrentHashMap<String, ReentrantLock> locks =
                new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public Cycle lock(String key) {
            ReentrantLock lock = locks.computeIfAbsent(key, k -> new ReentrantLock(true));
            return new Cycle() {
                @Override
                public void lock() {
                    lock.lock();
                }

                @Override
                public void unlock() {
                    lock.unlock();
                }
            };
        }

        @Override
        public void close() {}
    }

    /** A fresh key per benchmark so sides and runs never share one. */
    static String freshKey(String prefix) {
        return prefix + ":" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }
}
