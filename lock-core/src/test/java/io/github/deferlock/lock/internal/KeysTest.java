package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

final class KeysTest {

    private static String key(String name) {
        return new String(Keys.lockKey("lock:", name), StandardCharsets.UTF_8);
    }

    @Test
    void lockKey_plainName_isPrefixAndHashTag() {
        assertThat(key("order:42")).isEqualTo("lock:{order:42}");
        assertThat(new String(Keys.fenceKey(Keys.lockKey("lock:", "a")), StandardCharsets.UTF_8))
                .isEqualTo("lock:{a}:fence");
        assertThat(new String(Keys.waitersKey(Keys.lockKey("lock:", "a")), StandardCharsets.UTF_8))
                .isEqualTo("lock:{a}:waiters");
        assertThat(new String(Keys.waiterDeadlinesKey(Keys.lockKey("lock:", "a")), StandardCharsets.UTF_8))
                .isEqualTo("lock:{a}:waiter-deadlines");
        assertThat(new String(
                        Keys.waiterChannel(
                                Keys.lockKey("lock:", "a"), "0123456789abcdef".getBytes(StandardCharsets.US_ASCII)),
                        StandardCharsets.UTF_8))
                .isEqualTo("lock:{a}:released:0123456789abcdef");
    }

    @Test
    void lockKey_braces_areEscapedSoTheTagIsTheWholeName() {
        assertThat(key("a}b")).isEqualTo("lock:{a%7Db}");
        assertThat(key("{}")).isEqualTo("lock:{%7B%7D}");
        assertThat(key("100%")).isEqualTo("lock:{100%25}");
        assertThat(key("é")).isEqualTo("lock:{é}");
    }

    @Test
    void lockKey_distinctNames_distinctKeysSharingTheSlotOfTheirFence() {
        List<String> names = List.of("a", "a}", "a%7D", "%", "%25", "{", "}", "}{", "x:fence", "\n", "\"'", "日本");
        Set<String> keys = new HashSet<>();
        for (String name : names) {
            byte[] lock = Keys.lockKey("p:", name);
            keys.add(new String(lock, StandardCharsets.UTF_8));
            assertThat(JedisClusterCRC16.getSlot(Keys.fenceKey(lock)))
                    .as(name)
                    .isEqualTo(JedisClusterCRC16.getSlot(lock));
        }
        assertThat(keys).hasSize(names.size());
    }
}
