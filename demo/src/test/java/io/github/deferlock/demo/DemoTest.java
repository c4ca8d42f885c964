package io.github.deferlock.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

final class DemoTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Demo.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void defaultRun_startsRedisAndPrintsItsVersion() {
        assertThat(run()).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).containsPattern("redis-server \\d+\\.\\d+\\.\\d+");
    }

    @Test
    void help_explainsAndExitsZero() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("usage");
    }

    @Test
    void unknownOption_exitsTwoNamingIt() {
        assertThat(run("--nope")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--nope");
    }
}
