package io.github.deferlock.inspect.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

final class Utf8Test {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void prefix_cutsBeforeAnIncompleteCharacter() {
        byte[] text = utf8("aé😀b"); // 1 + 2 + 4 + 1 bytes
        assertThat(Utf8.prefix(text, 1)).isEqualTo("a");
        assertThat(Utf8.prefix(text, 2)).isEqualTo("a");
        assertThat(Utf8.prefix(text, 3)).isEqualTo("aé");
        assertThat(Utf8.prefix(text, 6)).isEqualTo("aé");
        assertThat(Utf8.prefix(text, 7)).isEqualTo("aé😀");
        assertThat(Utf8.prefix(text, 100)).isEqualTo("aé😀b");
        assertThat(Utf8.prefix(new byte[0], 5)).isEmpty();
    }

    @Test
    void prefix_bytesThemselvesEndMidCharacter_dropsIt() {
        byte[] cut = java.util.Arrays.copyOf(utf8("xé"), 2); // 'x' and the lead byte of é
        assertThat(Utf8.prefix(cut, 16)).isEqualTo("x");
    }
}
