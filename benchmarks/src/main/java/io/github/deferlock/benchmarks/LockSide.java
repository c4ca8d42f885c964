package io.github.deferlock.benchmarks;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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

    /** Opens a side by its results.json name (see {@link Sides}). */
    static LockSide open(String side, Redis redis) {
        return switch (side) {
            case Sides.DEFERLOCK -> new Deferlock(redis);
            case Sides.RAW -> new BareJedis(redis, false);
            case Sides.SEED -> new BareJedis(redis, true);
            case Sides.RAW_FENCED -> new RawFenced(redis);
            case Sides.RLOCK -> new RedissonLock(redis.redisson(), RedissonClient::getLock);
            case Sides.RLOCK_TUNED -> new RedissonLock(redis.redissonTuned(), RedissonClient::getLock);
            case Sides.FENCED -> new RedissonLock(redis.redisson(), RedissonClient::getFencedLock);
            case Sides.FENCED_TUNED -> new RedissonLock(redis.redissonTuned(), RedissonClient::getFencedLock);
            case Sides.FAIR -> new RedissonLock(redis.redisson(), RedissonClient::getFairLock);
            case Sides.FAIR_TUNED -> new RedissonLock(redis.redissonTuned(), RedissonClient::getFairLock);
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
     * Bare Jedis: {@code SET key token NX PX 30000}, released by EVALSHA compare-and-delete. As "raw" it spins
     * on a held key (uncontended it never meets one); as "seed" it is the seed articles' spin lock: on failure
     * it sleeps 1 ms and tries again.
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

    /**
     * Bare Jedis sending deferlock's own acquire and release scripts (read from lock-core's resources, so this
     * side follows the real scripts): the ceiling of deferlock's design, without its Java. One fencing token
     * per acquisition, no watchdog, no local hand-off; on a held key it sleeps 1 ms and tries again.
     */
    final class RawFenced implements LockSide {
        private final RedisClient client;
        private final String acquire;
        private final String release;

        RawFenced(Redis redis) {
            client = redis.jedis();
            acquire = client.scriptLoad(Limits.script(Limits.LOCK_SCRIPTS + "acquire.lua"));
            release = client.scriptLoad(Limits.script(Limits.LOCK_SCRIPTS + "release.lua"));
        }

        @Override
        public Cycle lock(String key) {
            String k = "rawf:{" + key + "}";
            List<String> keys = List.of(k, k + ":fence", k + ":waiters", k + ":waiter-deadlines");
            List<String> releaseKeys = List.of(k, k + ":last-release", k + ":waiters", k + ":waiter-deadlines");
            String lease = Long.toString(LEASE_MILLIS);
            return new Cycle() {
                private String token;

                @Override
                public void lock() throws InterruptedException {
                    byte[] b = new byte[16];
                    ThreadLocalRandom.current().nextBytes(b);
                    String t = HexFormat.of().formatHex(b);
                    while (true) {
                        Object r = client.evalsha(
                                acquire, keys, List.of(t, lease, "1", "", "new", "1000", k + ":released:", "0"));
                        if (r instanceof List<?> l && Long.valueOf(1).equals(l.get(0))) {
                            break;
                        }
                        Thread.sleep(1);
                    }
                    token = t;
                }

                @Override
                public void unlock() {
                    client.evalsha(release, releaseKeys, List.of(token, k + ":released:", "0", "60000", "1000"));
                }
            };
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** A Redisson lock ({@code RLock}, {@code RFencedLock} or {@code RFairLock}): {@code lock()}/{@code unlock()}. */
    final class RedissonLock implements LockSide {
        private final RedissonClient redisson;
        private final Function<RedissonClient, Function<String, ? extends RLock>> kind;

        RedissonLock(
                RedissonClient redisson, java.util.function.BiFunction<RedissonClient, String, ? extends RLock> get) {
            this.redisson = redisson;
            this.kind = r -> name -> get.apply(r, name);
        }

        @Override
        public Cycle lock(String key) {
            RLock lock = kind.apply(redisson).apply("redisson:" + key);
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

    /** A fresh key per benchmark so sides and runs never share one. */
    static String freshKey(String prefix) {
        return prefix + ":" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }
}
