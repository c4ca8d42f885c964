package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.redis.internal.Names.Kind;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

final class NamesTest {

    @Test
    void requireValid_unpairedSurrogates_refusedWithEscapedValueAndRule() {
        for (Kind kind : Kind.values()) {
            for (String bad : List.of("j\uD800", "j\uDBFF", "j\uDC00", "\uDC00\uD800", "a\uD800b")) {
                assertThatThrownBy(() -> Names.requireValid(kind, bad))
                        .as("%s %s", kind, bad)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith(kind.label() + " \"")
                        .hasMessageContaining("unpaired surrogate \\u")
                        .hasMessageContaining(kind.rule());
            }
        }
        assertThatThrownBy(() -> Names.requireValid(Kind.JOB_ID, "j\uD800"))
                .hasMessage("job id \"j\\uD800\" has an unpaired surrogate \\uD800 at index 1: a job id must be 1 to "
                        + "512 bytes of UTF-8 of valid Unicode (no unpaired surrogate)");
    }

    @Test
    void requireValid_validNames_returnTheirExactUtf8() {
        for (String ok : List.of("j?", "order:42", "a}b{c", "100%", "\uD83D\uDE00 emoji", "quote\"\r\n\0", "é")) {
            assertThat(Names.requireValid(Kind.LOCK_NAME, ok)).isEqualTo(ok.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void requireValid_lengthIsCountedInUtf8Bytes() {
        for (Kind kind : Kind.values()) {
            int max = kind.maxBytes();
            Names.requireValid(kind, "k".repeat(max));
            assertThatThrownBy(() -> Names.requireValid(kind, "k".repeat(max + 1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is " + (max + 1) + " bytes in UTF-8, longer than " + max)
                    .hasMessageContaining("… (" + (max + 1) + " chars)");
        }
        // 3 bytes per char: 68 chars = 204 bytes, over the queue name's 200
        assertThatThrownBy(() -> Names.requireValid(Kind.QUEUE_NAME, "\u20AC".repeat(68)))
                .hasMessageContaining("204 bytes");
        // a surrogate pair is 4 bytes
        assertThatThrownBy(() -> Names.requireValid(Kind.QUEUE_NAME, "\uD83D\uDE00".repeat(51)))
                .hasMessageContaining("204 bytes");
        Names.requireValid(Kind.QUEUE_NAME, "\uD83D\uDE00".repeat(50));
    }

    @Test
    void requireValid_nullAndEmpty_refusedNamingTheKind() {
        assertThatThrownBy(() -> Names.requireValid(Kind.HANDLER_NAME, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("handler name cannot be null");
        assertThatThrownBy(() -> Names.requireValid(Kind.MESSAGE_ID, ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("message id \"\" is empty: a message id must be 1 to 400 bytes");
    }

    @Test
    void requireValid_bracesRefusedOnlyInQueueNames() {
        assertThatThrownBy(() -> Names.requireValid(Kind.QUEUE_NAME, "a{b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("contains '{' at index 1")
                .hasMessageContaining("without '{' or '}'");
        assertThatThrownBy(() -> Names.requireValid(Kind.QUEUE_NAME, "ab}")).hasMessageContaining("'}'");
        for (Kind kind : List.of(Kind.LOCK_NAME, Kind.JOB_ID, Kind.HANDLER_NAME, Kind.MESSAGE_ID)) {
            Names.requireValid(kind, "a{b}");
        }
    }

    @Test
    void show_escapesControlsQuotesAndSurrogatesAndTruncates() {
        assertThat(Names.show("a\"b\\c\n\u0000\uDC00\uD83D\uDE00"))
                .isEqualTo("\"a\\\"b\\\\c\\u000A\\u0000\\uDC00\uD83D\uDE00\"");
        assertThat(Names.show("x".repeat(1_000_000))).isEqualTo("\"" + "x".repeat(64) + "\"… (1000000 chars)");
    }

    @Test
    void pair_isInjectiveWhereAPlainJoinIsNot() {
        assertThat(Names.pair("h", "x:1")).isNotEqualTo(Names.pair("h:x", "1"));
        assertThat(Names.pair("h", "x:1")).isEqualTo("1:h:x:1");
        assertThat(Names.pair("h:x", "1")).isEqualTo("3:h:x:1");
        Set<String> seen = new HashSet<>();
        List<String> parts = List.of("a", "a:", ":a", "1:a", "a:1", "é", "1", ":", "::", "2:a:");
        for (String h : parts) {
            for (String m : parts) {
                assertThat(seen.add(Names.pair(h, m))).as("(%s, %s)", h, m).isTrue();
            }
        }
    }

    @Test
    void queuePrefix_isUnderTheRoot() {
        assertThat(QueueKeyspace.prefix("orders")).isEqualTo("deferlock:dq:{orders}:");
    }
}
