package io.github.deferlock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class) // one server per class, flushed before each test
final class ReadmeExampleIT {
    @Test
    void survivesACrash(RedisServer server, RedisClient redis) {
        redis.set("k", "v");
        server.kill(); // SIGKILL; also pause()/resume(), restart(), config(..)
        server.restart(); // same port and data dir
        try (RedisClient fresh = server.newClient()) { // the old pool's connections died with the server
            assertThat(fresh.exists("k")).isFalse(); // no AOF: the write is gone
        }
    }
}
