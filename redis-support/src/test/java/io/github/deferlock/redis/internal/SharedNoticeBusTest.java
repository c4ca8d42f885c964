package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** One bus per client and scope, created by the first lease and closed with the last (no Redis needed). */
final class SharedNoticeBusTest {

    @Test
    void lease_sameClientAndScopeShareOneBus_lastCloseClosesIt() {
        try (RedisClient a = RedisClient.create("localhost", 1); // never connected: a bus connects on first watch
                RedisClient b = RedisClient.create("localhost", 1)) {
            AtomicInteger created = new AtomicInteger();
            int before = SharedNoticeBus.open();
            SharedNoticeBus.Lease first = SharedNoticeBus.lease(a, "lock:", () -> bus(a, created));
            SharedNoticeBus.Lease second = SharedNoticeBus.lease(a, "lock:", () -> bus(a, created));
            SharedNoticeBus.Lease otherScope = SharedNoticeBus.lease(a, "other:", () -> bus(a, created));
            SharedNoticeBus.Lease otherClient = SharedNoticeBus.lease(b, "lock:", () -> bus(b, created));

            assertThat(first.bus()).isSameAs(second.bus());
            assertThat(otherScope.bus()).isNotSameAs(first.bus());
            assertThat(otherClient.bus()).isNotSameAs(first.bus());
            assertThat(created).hasValue(3);
            assertThat(SharedNoticeBus.open()).isEqualTo(before + 3);

            first.close();
            first.close(); // idempotent: does not return the second lease
            assertThat(second.bus().toString()).doesNotContain("closed");
            second.close();
            assertThat(first.bus().toString()).contains("closed");
            otherScope.close();
            otherClient.close();
            assertThat(SharedNoticeBus.open()).isEqualTo(before);

            SharedNoticeBus.Lease again = SharedNoticeBus.lease(a, "lock:", () -> bus(a, created));
            assertThat(again.bus()).as("a new bus after the last one closed").isNotSameAs(first.bus());
            again.close();
        }
    }

    private static NoticeBus bus(RedisClient client, AtomicInteger created) {
        created.incrementAndGet();
        return new NoticeBus(Topology.of(client), "test-subscriber");
    }
}
