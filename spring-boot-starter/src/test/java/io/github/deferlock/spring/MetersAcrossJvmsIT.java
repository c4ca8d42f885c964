package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

/**
 * Every meter of docs/metrics.md against a count kept apart from the listeners: {@code @WithLock} calls of
 * each strategy while a second JVM ({@link LockHolder}) holds their lock, and again once it let go. The truth
 * is what the callers saw (conflict exceptions, deferred outcomes), what the method bodies recorded, and the
 * deferral queue's contents in Redis. {@code max-deferrals=1}: a deferred call that comes due while the other
 * JVM still holds the lock goes to the dead letters (countable in Redis) instead of being deferred again, so
 * the counts are exact whatever the timing.
 */
@SpringBootTest(
        classes = MetersAcrossJvmsIT.App.class,
        properties = {
            "deferlock.lock.key-prefix=metered:",
            "deferlock.deferrals.initial-delay=2s",
            "deferlock.deferrals.max-delay=2s",
            "deferlock.deferrals.max-deferrals=1",
            // the dead-letter round needs deferred calls that come due while the key is still held (timed DEFER);
            // ordered DEFER's meters are checked against counts in deferlock-micrometer's LockAndConflictMetricsIT
            "deferlock.deferrals.mode=timed",
            "deferlock.queue.gauge-refresh=100ms",
            "management.metrics.enable.all=true"
        })
@DirtiesContext
final class MetersAcrossJvmsIT {

    static final RedisServer SERVER = RedisServer.start();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        OrderService orderService(RedisLocks locks) {
            return new OrderService(locks);
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
    OrderService orders;

    @Autowired
    Deferrals deferrals;

    @Autowired
    MeterRegistry registry;

    private int throwConflicts;
    private int deferredCalls;
    private int contendedRetryingCalls;
    private final Set<String> deferredNotes = new HashSet<>();

    @Test
    void everyMeter_equalsAnIndependentCount_underContentionFromASecondJvm() throws Exception {
        contendedRound(101);
        contendedRound(102);
        deadLetterRound(103);

        DelayQueue<?> queue = deferrals.queue();
        long runs = orders.runs().size();
        long deferredRan = orders.runs().stream()
                .filter(r -> deferredNotes.contains(r.note()))
                .count();
        long dead = queue.size(JobState.DEAD);
        assertThat(deferredRan + dead)
                .as("every deferred call ran or was dead-lettered")
                .isEqualTo(deferredCalls);
        assertThat(dead).as("the dead-letter round dead-lettered its calls").isGreaterThanOrEqualTo(2);
        assertThat(deferredRan)
                .as("deferred calls ran once the other JVM let go")
                .isGreaterThanOrEqualTo(1);
        assertThat(orders.runs()).allMatch(OrderService.Run::heldLock);

        String name = "with-lock";
        // conflict meters
        assertThat(timer("deferlock.conflict.acquired", "name", name).count())
                .as("deferlock.conflict.acquired: one per critical section")
                .isEqualTo(runs);
        assertThat(timer("deferlock.conflict.processed", "name", name).count())
                .as("deferlock.conflict.processed: one per critical section")
                .isEqualTo(runs);
        assertThat(conflicts("throw")).isEqualTo(throwConflicts);
        assertThat(conflicts("defer"))
                .as("DEFER conflicts: the deferred calls, and each dead-lettered run that found the lock taken")
                .isEqualTo(deferredCalls + dead);
        double sleepRetryConflicts = conflicts("sleep_retry");
        assertThat(sleepRetryConflicts).isGreaterThanOrEqualTo(contendedRetryingCalls);
        assertThat(counter("deferlock.conflict.retries", "name", name))
                .as("every SLEEP_RETRY conflict was followed by a sleep: each contended call ended holding the lock")
                .isEqualTo(sleepRetryConflicts);
        assertThat(counter("deferlock.conflict.deferrals", "name", name)).isEqualTo(deferredCalls);
        assertThat(counter("deferlock.conflict.dead.letters", "name", name)).isEqualTo(dead);
        assertThat(counter("deferlock.conflict.lost", "name", name)).isZero();
        assertThat(counter("deferlock.conflict.duplicates", "name", name)).isZero();

        // lock meters: this JVM's holds only
        String prefix = "metered:";
        assertThat(timer("deferlock.lock.acquired", "prefix", prefix).count()).isEqualTo(runs);
        assertThat(timer("deferlock.lock.held", "prefix", prefix).count()).isEqualTo(runs);
        assertThat(counter("deferlock.lock.conflicts", "prefix", prefix))
                .as("every strategy's conflict is an acquisition that gave up")
                .isEqualTo(throwConflicts + deferredCalls + dead + sleepRetryConflicts);
        assertThat(counter("deferlock.lock.lost", "prefix", prefix)).isZero();

        // queue meters of the deferral queue
        String q = queue.name();
        assertThat(counter("deferlock.queue.enqueued", "queue", q)).isEqualTo(deferredCalls);
        assertThat(counter("deferlock.queue.claimed", "queue", q)).isEqualTo(deferredRan + dead);
        assertThat(timer("deferlock.queue.run", "queue", q).count()).isEqualTo(deferredRan);
        assertThat(timer("deferlock.queue.lateness", "queue", q).count()).isEqualTo(deferredRan);
        assertThat(registry.find("deferlock.queue.failed").tag("queue", q).counters())
                .allSatisfy(c -> assertThat(c.count()).isZero());
        assertThat(counter("deferlock.queue.dead.letters", "queue", q)).isEqualTo(dead);
        assertThat(counter("deferlock.queue.claims.lost", "queue", q)).isZero();
        assertThat(counter("deferlock.queue.given.back", "queue", q)).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(gauge("deferlock.queue.due", q)).isZero();
            assertThat(gauge("deferlock.queue.in.flight", q)).isZero();
            assertThat(gauge("deferlock.queue.dead", q)).isEqualTo(dead);
            assertThat(registry.get("deferlock.queue.oldest.due.age")
                            .tag("queue", q)
                            .timeGauge()
                            .value(TimeUnit.MILLISECONDS))
                    .isZero();
            assertThat(functionCounter("deferlock.queue.total.enqueued", q)).isEqualTo(deferredCalls);
            assertThat(functionCounter("deferlock.queue.total.acked", q)).isEqualTo(deferredRan);
            assertThat(functionCounter("deferlock.queue.total.dead.lettered", q))
                    .isEqualTo(dead);
        });
    }

    /**
     * The other JVM holds {@code order:id}: THROW calls fail, DEFER calls are deferred, a SLEEP_RETRY call waits
     * queued; then it lets go, the waiting call and the deferred calls run, and free calls of each strategy run.
     */
    private void contendedRound(long id) throws Exception {
        try (JvmProcess holder = JvmProcess.start(LockHolder.class, SERVER.uri(), "metered:", "order:" + id);
                RedisClient c = SERVER.newClient()) {
            holder.awaitLine("HELD", Duration.ofSeconds(60));
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> orders.throwing(id)).isInstanceOf(LockConflictException.class);
                throwConflicts++;
            }
            CompletableFuture<String> retrying = CompletableFuture.supplyAsync(() -> orders.retrying(id));
            // a waiter queued behind the holder marks the holder's value with '+'
            await().atMost(Duration.ofSeconds(20)).until(() -> String.valueOf(c.get("metered:{order:" + id + "}"))
                    .endsWith("+"));
            contendedRetryingCalls++;
            // deferred last, just before the release: they come due 2 s later, normally after it
            for (int i = 0; i < 4; i++) {
                deferCall(id, id + "-" + i);
            }
            c.set("release:order:" + id, "1");
            holder.awaitLine("RELEASED", Duration.ofSeconds(30));
            assertThat(retrying.get(30, TimeUnit.SECONDS)).isEqualTo("done " + id);
        }
        awaitDeferralsSettled();
        for (int i = 0; i < 2; i++) {
            assertThat(orders.throwing(id)).isEqualTo("done " + id);
            assertThat(orders.deferring(id, "free").isDeferred()).isFalse();
        }
        assertThat(orders.retrying(id)).isEqualTo("done " + id);
    }

    /** The other JVM holds {@code order:id} until both deferred calls came due, met it, and were dead-lettered. */
    private void deadLetterRound(long id) throws Exception {
        long deadBefore = deferrals.queue().size(JobState.DEAD);
        try (JvmProcess holder = JvmProcess.start(LockHolder.class, SERVER.uri(), "metered:", "order:" + id);
                RedisClient c = SERVER.newClient()) {
            holder.awaitLine("HELD", Duration.ofSeconds(60));
            deferCall(id, id + "-a");
            deferCall(id, id + "-b");
            await().atMost(Duration.ofSeconds(30)).until(() -> deferrals.queue().size(JobState.DEAD) == deadBefore + 2);
            c.set("release:order:" + id, "1");
            holder.awaitLine("RELEASED", Duration.ofSeconds(30));
        }
        awaitDeferralsSettled();
    }

    private void deferCall(long id, String note) {
        assertThat(orders.deferring(id, note).isDeferred()).isTrue();
        deferredCalls++;
        deferredNotes.add(note);
    }

    private void awaitDeferralsSettled() {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> deferrals.queue().size(JobState.DUE) == 0
                        && deferrals.queue().size(JobState.IN_FLIGHT) == 0);
    }

    private double conflicts(String strategy) {
        return registry.get("deferlock.conflict.conflicts")
                .tag("name", "with-lock")
                .tag("strategy", strategy)
                .counter()
                .count();
    }

    private Timer timer(String meter, String tag, String value) {
        return registry.get(meter).tag(tag, value).timer();
    }

    private double counter(String meter, String tag, String value) {
        Counter c = registry.get(meter).tag(tag, value).counter();
        return c.count();
    }

    private double gauge(String meter, String queue) {
        Gauge g = registry.get(meter).tag("queue", queue).gauge();
        return g.value();
    }

    private double functionCounter(String meter, String queue) {
        FunctionCounter f = registry.get(meter).tag("queue", queue).functionCounter();
        return f.count();
    }
}
