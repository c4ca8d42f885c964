package io.github.deferlock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

final class RedisBinaryTest {

    @Test
    void resolve_findsAnExecutableWithAVersion() {
        RedisBinary binary = RedisBinary.resolve();
        assertThat(Files.isExecutable(binary.path())).isTrue();
        assertThat(binary.version()).matches("\\d+\\.\\d+\\.\\d+");
        assertThat(binary.majorVersion()).isGreaterThanOrEqualTo(6);
        assertThat(binary.atLeast(6, 2)).isTrue();
        assertThat(RedisBinary.resolve()).isSameAs(binary);
    }

    @Test
    void embedded_isExtractedAndRunsRedis62() {
        RedisBinary embedded = RedisBinary.embedded();
        assertThat(Files.isExecutable(embedded.path())).isTrue();
        assertThat(embedded.version()).startsWith("6.2.");
        assertThat(embedded.source()).startsWith("embedded");
    }

    @Test
    void resolve_honoursTheEnvironmentVariable() {
        String wanted = System.getenv(RedisBinary.ENV);
        RedisBinary binary = RedisBinary.resolve();
        if (wanted == null || wanted.isBlank()) {
            assertThat(binary.source()).isIn("PATH", "embedded (no redis-server on PATH)");
        } else if (wanted.equalsIgnoreCase("embedded")) {
            assertThat(binary.source()).startsWith("embedded");
            assertThat(binary.version()).startsWith("6.2.");
        } else {
            assertThat(binary.path().toString()).isEqualTo(wanted);
        }
    }
}
