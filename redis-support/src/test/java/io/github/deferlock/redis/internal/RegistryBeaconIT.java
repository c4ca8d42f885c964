package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/** The registry writer against a real redis-server, on fake clocks (issue 17). */
@ExtendWith(RedisExtension.class)
final class RegistryBeaconIT {

    @Test
    void touch_writesAtMostOncePerRefresh(RedisClient redis) {
        AtomicLong wall = new AtomicLong(1_000);
        AtomicLong nanos = new AtomicLong(0);
        RegistryBeacon beacon = new RegistryBeacon(Registry.Kind.QUEUE, wall::get, nanos::get);
        assertThat(beacon.touch(redis, "q")).isTrue();
        assertThat(redis.hget("deferlock:registry", "queue:q")).isEqualTo("1000");
        wall.set(2_000);
        nanos.addAndGet(Registry.REFRESH.toNanos() - 1);
        assertThat(beacon.touch(redis, "q")).isFalse();
        assertThat(redis.hget("deferlock:registry", "queue:q")).isEqualTo("1000");
        nanos.addAndGet(1);
        assertThat(beacon.touch(redis, "q")).isTrue();
        assertThat(redis.hget("deferlock:registry", "queue:q")).isEqualTo("2000");
    }

    @Test
    void touch_lockPrefix_writesUnderThatPrefix(RedisClient redis) {
        new RegistryBeacon(Registry.Kind.LOCK_PREFIX).touch(redis, "jobs:");
        assertThat(redis.hkeys("jobs:registry")).containsExactly("lock-prefix:jobs:");
        assertThat(redis.exists("deferlock:registry")).isFalse();
    }

    @Test
    void touch_redisDown_neverThrows_andRetriesAfterTheInterval(RedisServer server) {
        AtomicLong nanos = new AtomicLong(0);
        RegistryBeacon beacon = new RegistryBeacon(Registry.Kind.DEFERRALS, () -> 5L, nanos::get);
        HostAndPort gone;
        try (RedisServer other = RedisServer.start()) {
            gone = other.hostAndPort();
        }
        try (RedisClient down = RedisClient.builder().hostAndPort(gone).build()) {
            assertThat(beacon.touch(down, "d")).isFalse();
        }
        try (RedisClient up = server.newClient()) {
            assertThat(beacon.touch(up, "d")).as("within the interval").isFalse();
            nanos.addAndGet(Registry.REFRESH.toNanos());
            assertThat(beacon.touch(up, "d")).isTrue();
            assertThat(up.hget("deferlock:registry", "deferrals:d")).isEqualTo("5");
        }
    }

    @Test
    void parse_readsBackWhatIsWritten_andSkipsUnknownFields() {
        assertThat(Registry.parse(bytes(Registry.field(Registry.Kind.LOCK_PREFIX, "a:b:")), bytes("42")))
                .contains(new Registry.Entry(Registry.Kind.LOCK_PREFIX, "a:b:", 42));
        assertThat(Registry.parse(bytes("queue:x"), bytes("not a number"))).isEmpty();
        assertThat(Registry.parse(bytes("widget:x"), bytes("1"))).isEmpty();
        assertThat(Registry.parse(bytes("noColon"), bytes("1"))).isEmpty();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
