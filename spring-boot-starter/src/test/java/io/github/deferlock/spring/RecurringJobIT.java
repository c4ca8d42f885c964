package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.delay.ScheduleInfo;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/** {@code @RecurringJob} methods in real applications: two instances run each slot once. */
final class RecurringJobIT {

    static final RedisServer SERVER = RedisServer.start();
    static final AtomicInteger DELAYED_RUNNING = new AtomicInteger();
    static final AtomicInteger DELAYED_OVERLAPS = new AtomicInteger();

    /** Counts its runs. */
    static class Jobs {
        final AtomicInteger cron = new AtomicInteger();
        final AtomicInteger rate = new AtomicInteger();
        final AtomicInteger delayed = new AtomicInteger();

        @RecurringJob(id = "every-second", cron = "* * * * * *", zone = "Europe/Paris")
        void everySecond() {
            cron.incrementAndGet();
        }

        @RecurringJob(fixedRate = "1s")
        void tick() {
            rate.incrementAndGet();
        }

        @RecurringJob(id = "after-each", fixedDelay = "1s")
        void afterEach() throws InterruptedException {
            if (DELAYED_RUNNING.incrementAndGet() > 1) { // in either instance
                DELAYED_OVERLAPS.incrementAndGet();
            }
            Thread.sleep(1200); // longer than the delay: a rate would overlap
            DELAYED_RUNNING.decrementAndGet();
            delayed.incrementAndGet();
        }
    }

    /** A bad cron expression. */
    static class BadJobs {
        @RecurringJob(cron = "61 * * * *")
        void never() {}
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class BadApp {
        @Bean
        BadJobs badJobs() {
            return new BadJobs();
        }
    }

    @AfterAll
    static void stopRedis() {
        SERVER.close();
    }

    @BeforeEach
    void flush() {
        SERVER.flushAll();
    }

    private static ConfigurableApplicationContext start(Class<?> app) {
        return new SpringApplicationBuilder(app)
                .properties(
                        "spring.data.redis.host=" + SERVER.host(),
                        "spring.data.redis.port=" + SERVER.port(),
                        "spring.main.banner-mode=off")
                .run();
    }

    @Test
    void twoInstances_runEachSlotOnce() {
        ConfigurableApplicationContext a = start(App.class);
        ConfigurableApplicationContext b = start(App.class);
        Jobs ja = a.getBean(Jobs.class);
        Jobs jb = b.getBean(Jobs.class);
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> ja.cron.get() + jb.cron.get() >= 3
                            && ja.rate.get() + jb.rate.get() >= 3
                            && ja.delayed.get() + jb.delayed.get() >= 2);
            DelayQueue<String> q = a.getBean(DelayQueues.class).get("deferlock-recurring", String.class);
            List<ScheduleInfo> listed = q.schedules().list();
            assertThat(listed).extracting(ScheduleInfo::id).containsExactly("after-each", "every-second", "jobs.tick");
            assertThat(listed.get(0).spec()).isEqualTo("delay:PT1S");
            assertThat(listed.get(1).spec()).isEqualTo("cron:* * * * * *|Europe/Paris");
            assertThat(listed.get(2).spec()).isEqualTo("rate:PT1S");
        } finally {
            b.close();
            a.close();
        }
        assertThat(DELAYED_OVERLAPS.get()).as("two fixed-delay runs at once").isZero();
        long runs = ja.cron.get() + jb.cron.get() + ja.rate.get() + jb.rate.get() + ja.delayed.get() + jb.delayed.get();
        try (RedisClient redis = RedisClient.builder()
                .hostAndPort(new HostAndPort(SERVER.host(), SERVER.port()))
                .build()) {
            QueueStats stats = DelayQueue.stats(redis, "deferlock-recurring");
            // each fired job ran once (acked once); a job fired just before the close may still wait
            assertThat(stats.acked()).isEqualTo(runs);
            assertThat(stats.enqueued()).isGreaterThanOrEqualTo(runs);
        }
    }

    @Test
    void badCron_failsTheStartNamingTheMethodAndExpression() {
        assertThatThrownBy(() -> start(BadApp.class).close())
                .hasStackTraceContaining("@RecurringJob on " + BadJobs.class.getName() + ".never")
                .hasStackTraceContaining("cron expression '61 * * * *' is not valid");
    }
}
