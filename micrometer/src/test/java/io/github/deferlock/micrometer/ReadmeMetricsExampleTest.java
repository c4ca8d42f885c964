package io.github.deferlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/** The code of the README "Metrics and tracing" section, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeMetricsExampleTest {

    /** The reader's payload. */
    public record Email(String to) {}

    @Test
    void readmeSnippet_runs(RedisClient redis) {
        MeterRegistry registry = new SimpleMeterRegistry();
        // README:start
        LockMetrics lockMetrics = new LockMetrics("lock:");
        RedisLocks locks = RedisLocks.builder(redis).listener(lockMetrics).build();
        QueueMetrics queueMetrics = QueueMetrics.builder().build();
        DelayQueue<Email> emails = DelayQueue.builder(redis, "emails", Email.class)
                .listener(queueMetrics)
                .build();
        queueMetrics.monitor(emails); // due / in flight / dead / oldest due age gauges
        lockMetrics.bindTo(registry);
        queueMetrics.bindTo(registry);
        // README:end
        locks.get("a").withLock(() -> emails.enqueue(new Email("ada@example.com")));
        locks.close();
        assertThat(registry.get("deferlock.lock.held").timer().count()).isEqualTo(1);
        assertThat(registry.get("deferlock.queue.due").gauge().value()).isEqualTo(1);
    }
}
