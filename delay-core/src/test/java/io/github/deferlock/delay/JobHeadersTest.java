package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class JobHeadersTest {

    @Test
    void withHeader_addsAndReplaces_keepingOrder_andLeavesTheOriginalAlone() {
        NewJob<String> plain = NewJob.of("p");
        NewJob<String> job = plain.withHeader("a", "1").withHeader("b", "2").withHeader("a", "3");
        assertThat(plain.headers()).isEmpty();
        assertThat(job.headers()).containsExactly(Map.entry("a", "3"), Map.entry("b", "2"));
        assertThat(job.withHeaders(Map.of("c", "4")).headers()).containsKeys("a", "b", "c");
    }

    @Test
    void headers_areUnmodifiable_andACopy() {
        Map<String, String> given = new HashMap<>(Map.of("k", "v"));
        NewJob<String> job = NewJob.of("p").withHeaders(given);
        given.put("k", "changed");
        assertThat(job.headers()).containsEntry("k", "v");
        assertThatThrownBy(() -> job.headers().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void fourArgumentConstructor_andFactories_haveNoHeaders() {
        assertThat(new NewJob<>("id", "p", Duration.ZERO, null).headers()).isEmpty();
        assertThat(NewJob.at("p", Instant.EPOCH).headers()).isEmpty();
        assertThat(new NewJob<>(null, "p", Duration.ZERO, null, null).headers()).isEmpty();
    }

    @Test
    void tooManyHeaders_isRefusedNamingTheLimit() {
        Map<String, String> many = new LinkedHashMap<>();
        for (int i = 0; i <= DelayQueue.MAX_HEADERS; i++) {
            many.put("h" + i, "v");
        }
        assertThatThrownBy(() -> NewJob.of("p").withHeaders(many))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("number of headers must be within [0, 32], not 33");
    }

    @Test
    void keyTooLongOrEmpty_isRefusedNamingTheLimit() {
        String key = "k".repeat(DelayQueue.MAX_HEADER_KEY_BYTES + 1);
        assertThatThrownBy(() -> NewJob.of("p").withHeader(key, "v"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header key \"kkkk")
                .hasMessageEndingWith("in UTF-8 bytes must be within [1, 128], not 129");
        assertThatThrownBy(() -> NewJob.of("p").withHeader("", "v"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("header key \"\" in UTF-8 bytes must be within [1, 128], not 0");
        // the limit is in bytes: 43 three-byte characters are 129 bytes
        assertThatThrownBy(() -> NewJob.of("p").withHeader("€".repeat(43), "v")).hasMessageEndingWith("not 129");
        assertThat(NewJob.of("p").withHeader("k".repeat(128), "v").headers()).hasSize(1);
    }

    @Test
    void totalOverEightKiB_isRefusedNamingTheLimit() {
        assertThat(NewJob.of("p").withHeader("k", "v".repeat(8191)).headers()).hasSize(1); // exactly 8192
        assertThatThrownBy(() -> NewJob.of("p").withHeader("k", "v".repeat(8192)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("headers (keys and values) in UTF-8 bytes must be within [0, 8192], not 8193");
    }

    @Test
    void nullKeyOrValue_isRefused() {
        assertThatThrownBy(() -> NewJob.of("p").withHeader(null, "v"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("header key cannot be null");
        assertThatThrownBy(() -> NewJob.of("p").withHeader("k", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("value of header \"k\" cannot be null");
    }

    @Test
    void unpairedSurrogate_isRefused() {
        assertThatThrownBy(() -> NewJob.of("p").withHeader("k", "a\uD800"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate")
                .hasMessageContaining("\\uD800");
    }

    @Test
    void merge_jobsOwnHeadersWin() {
        Map<String, String> merged =
                JobHeaders.merge(Map.of("traceparent", "from-supplier", "tenant", "t1"), Map.of("traceparent", "own"));
        assertThat(merged).containsEntry("traceparent", "own").containsEntry("tenant", "t1");
    }

    @Test
    void merge_checksTheLimitsOfTheUnion() {
        Map<String, String> defaults = new LinkedHashMap<>();
        Map<String, String> own = new LinkedHashMap<>();
        for (int i = 0; i < 20; i++) {
            defaults.put("d" + i, "v");
            own.put("o" + i, "v");
        }
        assertThatThrownBy(() -> JobHeaders.merge(defaults, own))
                .hasMessage("number of headers must be within [0, 32], not 40");
    }
}
