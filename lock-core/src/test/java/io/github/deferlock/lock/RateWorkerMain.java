package io.github.deferlock.lock;

import io.github.deferlock.lock.internal.RedisRateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * A process for {@link RateLimiterIT}: {@code host port rate millis} — warms up (JIT) on another limiter, waits for
 * the key {@code go}, then calls tryAcquire on limiter {@code api} (rate per second) in a loop for {@code millis}
 * (after a refusal it pauses the refusal's retryAfter, at most 1 ms, so four such processes on two cores leave
 * Redis some CPU: still thousands of calls a second against a limit of hundreds), records the server time of each
 * grant (microseconds, as the limiter script reports it) and pushes them to the list {@code grants}; then prints
 * DONE.
 */
final class RateWorkerMain {
    private RateWorkerMain() {}

    public static void main(String[] args) throws Exception {
        HostAndPort address = new HostAndPort(args[0], Integer.parseInt(args[1]));
        int rate = Integer.parseInt(args[2]);
        long millis = Long.parseLong(args[3]);
        try (RedisClient redis = RedisClient.builder().hostAndPort(address).build();
                RedisLocks locks = RedisLocks.builder(redis).build()) {
            RedisRateLimiter limiter =
                    (RedisRateLimiter) locks.rateLimiter("api", RateLimit.of(rate, Duration.ofSeconds(1)));
            RedisRateLimiter warmUp =
                    (RedisRateLimiter) locks.rateLimiter("warm-up", RateLimit.of(rate, Duration.ofSeconds(1)));
            for (int i = 0; i < 3_000; i++) {
                warmUp.decide();
            }
            System.out.println("READY");
            while (!redis.exists("go")) {
                TimeUnit.MILLISECONDS.sleep(2);
            }
            List<String> grants = new ArrayList<>();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (System.nanoTime() < end) {
                RedisRateLimiter.Decision d = limiter.decide();
                if (d.granted()) {
                    grants.add(Long.toString(d.serverMicros()));
                } else {
                    LockSupport.parkNanos(Math.min(TimeUnit.MICROSECONDS.toNanos(d.retryMicros()), 1_000_000L));
                }
            }
            if (!grants.isEmpty()) {
                redis.rpush("grants", grants.toArray(String[]::new));
            }
            System.out.println("DONE " + grants.size());
        }
    }
}
