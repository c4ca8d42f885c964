package io.github.deferlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.Job;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class QueueMetricsIT {

    /** A clock the test moves by hand. */
    private static final class HandClock extends Clock {
        private volatile Instant now = Instant.parse("2026-11-24T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double gauge(String name) {
        return registry.get(name).tag("queue", "emails").gauge().value();
    }

    @Test
    void gauges_showSizesAndAreReadOncePerRefresh(RedisClient redis) throws Exception {
        HandClock clock = new HandClock();
        QueueMetrics metrics = QueueMetrics.builder()
                .gaugeRefresh(Duration.ofSeconds(5))
                .clock(clock)
                .build();
        DelayQueue<String> queue = DelayQueue.builder(redis, "emails", String.class)
                .listener(metrics)
                .build();
        metrics.monitor(queue).bindTo(registry);
        for (int i = 0; i < 4; i++) {
            queue.enqueue("now-" + i);
        }
        queue.enqueue("later", Duration.ofHours(1));
        Thread.sleep(20); // the due jobs are some milliseconds overdue
        List<Job<String>> claimed = queue.claim(2);
        assertThat(claimed).hasSize(2);
        queue.deadLetter(claimed.get(0), "test");

        assertThat(gauge("deferlock.queue.due")).isEqualTo(3); // 2 due now + 1 later
        assertThat(gauge("deferlock.queue.in.flight")).isEqualTo(1);
        assertThat(gauge("deferlock.queue.dead")).isEqualTo(1);
        assertThat(gauge("deferlock.queue.paused")).isZero();
        assertThat(registry.get("deferlock.queue.oldest.due.age")
                        .tag("queue", "emails")
                        .timeGauge()
                        .value(TimeUnit.MILLISECONDS))
                .isGreaterThan(0);
        QueueSnapshots snapshots = snapshotsOf(metrics);
        assertThat(snapshots.reads()).isEqualTo(1);

        queue.enqueue("another");
        assertThat(gauge("deferlock.queue.due")).as("cached for 5 s").isEqualTo(3);
        assertThat(snapshots.reads()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(5));
        assertThat(gauge("deferlock.queue.due")).isEqualTo(4);
        assertThat(snapshots.reads()).isEqualTo(2);
        assertThat(total("deferlock.queue.total.enqueued")).isEqualTo(6);
        assertThat(total("deferlock.queue.total.acked")).isZero();
        assertThat(total("deferlock.queue.total.dead.lettered")).isEqualTo(1);

        // one refresh of all eight meters is one script call, nothing else
        assertThat(queue.ack(claimed.get(1))).isTrue();
        queue.pause();
        resetCommandStats(redis);
        clock.advance(Duration.ofSeconds(5));
        assertThat(total("deferlock.queue.total.acked")).isEqualTo(1);
        assertThat(gauge("deferlock.queue.in.flight")).isZero();
        assertThat(gauge("deferlock.queue.dead")).isEqualTo(1);
        assertThat(gauge("deferlock.queue.paused")).isEqualTo(1);
        assertThat(snapshots.reads()).isEqualTo(3);
        assertThat(commandCalls(redis))
                .as("commands Redis ran for one refresh: one script call (and what stats.lua runs inside it; zrevrange:"
                        + " the priority levels in use, none here)")
                .isEqualTo(java.util.Map.of(
                        "evalsha",
                        1L,
                        "time",
                        1L,
                        "zrange",
                        1L,
                        "zrevrange",
                        1L,
                        "hmget",
                        1L,
                        "zcard",
                        3L,
                        "zcount",
                        1L,
                        "get",
                        1L));
        // the queue's own events: 6 jobs stored, 1 dead-lettered by deadLetter(...)
        assertThat(registry.get("deferlock.queue.enqueued")
                        .tag("queue", "emails")
                        .counter()
                        .count())
                .isEqualTo(6);
        assertThat(registry.get("deferlock.queue.dead.letters")
                        .tag("queue", "emails")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void gauges_areNaNWhileRedisIsDown(RedisServer server) {
        HandClock clock = new HandClock();
        QueueMetrics metrics = QueueMetrics.builder().clock(clock).build();
        try (RedisClient redis = server.newClient()) {
            DelayQueue<String> queue = DelayQueue.builder(redis, "emails", String.class)
                    .listener(metrics)
                    .build();
            metrics.monitor(queue).bindTo(registry);
            queue.enqueue("a");
            assertThat(gauge("deferlock.queue.due")).isEqualTo(1);
            server.kill();
            clock.advance(Duration.ofSeconds(10));
            assertThat(gauge("deferlock.queue.due")).isNaN();
            server.restart();
        }
    }

    private double total(String name) {
        return registry.get(name).tag("queue", "emails").functionCounter().count();
    }

    @SuppressWarnings("deprecation") // UnifiedJedis has no typed CONFIG RESETSTAT
    private static void resetCommandStats(RedisClient redis) {
        redis.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
    }

    /** {@code INFO commandstats}: calls per command since the last reset (the INFO call itself left out). */
    private static java.util.Map<String, Long> commandCalls(RedisClient redis) {
        java.util.Map<String, Long> calls = new java.util.TreeMap<>();
        for (String line : redis.info("commandstats").split("\r\n")) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^cmdstat_([^:]+):calls=(\\d+)")
                    .matcher(line);
            if (m.find()
                    && !m.group(1).equals("info")
                    && !m.group(1).equals("config|resetstat")
                    && !m.group(1).equals("config")) { // CONFIG RESETSTAT itself: Redis 6.2 names it "config"
                calls.put(m.group(1), Long.parseLong(m.group(2)));
            }
        }
        return calls;
    }

    private static QueueSnapshots snapshotsOf(QueueMetrics metrics) throws Exception {
        var field = QueueMetrics.class.getDeclaredField("gauges");
        field.setAccessible(true);
        @SuppressWarnings("unchecked")
        var gauges = (java.util.Map<String, QueueGauges>) field.get(metrics);
        return gauges.get("emails").snapshots();
    }
}
