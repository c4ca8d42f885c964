package io.github.deferlock.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * Issue 26: a Redis outage is waited out, never dead-letters an entry and costs it no attempt. The consumer, its
 * locks and its deferrals reach Redis through a {@link FaultProxy} that refuses connections (as a host that is
 * down) for 5 s while a producer with a direct connection adds entries.
 */
@ExtendWith(RedisExtension.class)
final class RedisOutageIT {

    @Test
    void redisUnreachableFor5s_entriesWait_andNoneIsDeadLettered(RedisServer server) throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient direct = Fixture.pooled(server.hostAndPort());
                Fixture f = new Fixture(proxy.hostAndPort(), Duration.ZERO).withDeferralWorker();
                StreamConsumer<Order> c = f.consumer("s").concurrency(4).build().start()) {
            StreamProducer producer = StreamProducer.builder(direct, "s").build();
            producer.add(new Order("warm", "warm"));
            await().atMost(Duration.ofSeconds(30)).until(() -> c.isRunning() && direct.hlen(Fixture.HANDLED) == 1);
            proxy.refuse();
            for (int i = 0; i < 20; i++) {
                producer.add(new Order("m" + i, "k" + i));
            }
            Thread.sleep(5_000); // the outage lasts 5 s while the entries arrive
            proxy.heal();
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> direct.hlen(Fixture.HANDLED) == 21 && f.pending("s") == 0);
            assertThat(direct.exists("s:dead")).isFalse();
            assertThat(f.recorder.deadLettered).hasValue(0);
            assertThat(f.recorder.failed).hasValue(0);
            assertThat(f.duplicates()).isEmpty();
        }
    }
}
