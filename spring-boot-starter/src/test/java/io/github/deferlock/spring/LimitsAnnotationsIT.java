package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.lock.PermitConflictException;
import io.github.deferlock.lock.PermitLease;
import io.github.deferlock.lock.RateLimitedException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.RedisClient;

/** {@code @WithLock(permits = ...)} and {@code @RateLimited} in a real application against a real redis-server. */
@SpringBootTest(classes = LimitsAnnotationsIT.App.class, properties = "deferlock.lock.key-prefix=lim:")
@DirtiesContext
final class LimitsAnnotationsIT {

    static final RedisServer SERVER = RedisServer.start();

    /** A bean with limited methods. */
    public static class Tenants {
        @WithLock(key = "'tenant:' + #tenant", permits = 2)
        public String work(String tenant) {
            return "done " + tenant;
        }

        @RateLimited(key = "'provider:' + #provider", rate = 3, per = "2s", burst = 3)
        public String charge(String provider) {
            return "charged";
        }

        @RateLimited(
                key = "'slow'",
                rate = 10,
                per = "1s",
                burst = 1,
                onConflict = LockStrategy.SLEEP_RETRY,
                maxWait = "5s")
        public long paced() {
            return System.nanoTime();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Tenants tenants() {
            return new Tenants();
        }
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", SERVER::host);
        registry.add("spring.data.redis.port", SERVER::port);
    }

    @AfterAll
    static void stopRedis() {
        SERVER.close();
    }

    @Autowired
    Tenants tenants;

    @Test
    void withLockPermits_runsBesideOtherHolders_untilEveryPermitIsTaken() {
        try (RedisClient client = SERVER.newClient();
                RedisLocks other = RedisLocks.builder(client).keyPrefix("lim:").build()) {
            PermitLease first = other.permits("tenant:a", 2).acquire(Duration.ZERO);
            assertThat(tenants.work("a")).isEqualTo("done a");
            PermitLease second = other.permits("tenant:a", 2).acquire(Duration.ZERO);
            assertThatThrownBy(() -> tenants.work("a"))
                    .isInstanceOfSatisfying(PermitConflictException.class, e -> assertThat(e.limit())
                            .isEqualTo(2));
            first.release();
            assertThat(tenants.work("a")).isEqualTo("done a");
            second.release();
        }
    }

    @Test
    void rateLimited_throw_refusesTheStartOverTheLimit_perKey() {
        for (int i = 0; i < 3; i++) {
            assertThat(tenants.charge("p1")).isEqualTo("charged");
        }
        assertThatThrownBy(() -> tenants.charge("p1")).isInstanceOfSatisfying(RateLimitedException.class, e -> {
            assertThat(e.key()).isEqualTo("provider:p1");
            assertThat(e.retryAfter()).isPositive();
        });
        assertThat(tenants.charge("p2")).isEqualTo("charged"); // another key has its own limiter
    }

    @Test
    void rateLimited_sleepRetry_pacesTheCalls() {
        List<Long> starts = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            starts.add(tenants.paced());
        }
        // 10 per second, burst 1: 5 starts are at least 4 emission intervals of 100 ms apart in all
        assertThat(Duration.ofNanos(starts.get(4) - starts.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(350));
    }

    @Test
    void rateLimited_refusesDeferAndBadLimitsAtStart() throws Exception {
        class Bad {
            @RateLimited(key = "'x'", rate = 5, onConflict = LockStrategy.DEFER)
            public void defer() {}

            @RateLimited(key = "'x'", rate = 0)
            public void zero() {}
        }
        assertThatThrownBy(() -> RateLimitedMethod.of(
                        Bad.class.getMethod("defer"),
                        Bad.class.getMethod("defer").getAnnotation(RateLimited.class)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not DEFER");
        assertThatThrownBy(() -> RateLimitedMethod.of(
                        Bad.class.getMethod("zero"), Bad.class.getMethod("zero").getAnnotation(RateLimited.class)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("rate");
    }
}
