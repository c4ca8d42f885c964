package io.github.deferlock.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No output of the standalone dashboard holds the Redis password, whatever is wrong with the URL that carries
 * it (issue 28): the message, and the stack trace of anything that escaped. The password is {@code pa55} +
 * {@code Secret}; neither half may appear, raw or decoded. The same kinds of wrong as the CLI's NoSecretsTest.
 */
final class NoSecretsTest {

    static Stream<String> malformedUrls() {
        return Stream.of(
                "redis://user:pa55-Secret@127.0.0.1:notaport",
                "redis://user:pa55-Secret@127.0.0.1:99999",
                "redis://user:pa55-Secret@127.0.0.1:6379:6380",
                "redis://user:pa55-Secret@127.0.0.1",
                "redis://user:pa55-Secret@127.0.0.1:",
                "http://user:pa55-Secret@127.0.0.1:1",
                "redis:/user:pa55-Secret@127.0.0.1:1",
                "user:pa55-Secret@127.0.0.1:1",
                "redis://user:pa55-Secret@:1",
                "redis://user:pa55-Secret@",
                "redis://user:pa55-Secret",
                "redis://:pa55-Secret@127.0.0.1:1/notadb",
                "redis://user:pa55-Secret@127.0.0.1:1/-1",
                "redis://user:pa55-Secret@127.0.0.1:1/0/extra",
                "redis://user:pa55-Secret@127.0.0.1:1/0?timeout=x",
                "redis://user:pa55-Secret@127.0.0.1:1#fragment",
                "redis://user:pa55-Secret@127 0.0.1:1",
                " redis://user:pa55-Secret@127.0.0.1:1",
                "redis://user:pa55-Secret@127.0.0.1:1\n",
                "redis://user:pa55\u202eSecret@127.0.0.1:notaport",
                "redis://user:pa55@Secret@127.0.0.1:notaport",
                "redis://user:pa55@Secret@127.0.0.1",
                "redis://user:pa55%40Secret@127.0.0.1:notaport",
                "redis://user:pa55%zzSecret@127.0.0.1:1",
                "redis://user:pa55%Secret@127.0.0.1:1",
                "redis://user:pa55 Secret@127.0.0.1:1",
                "redis://user:pa55/Secret@127.0.0.1:1",
                "redis://user:pa55#Secret@127.0.0.1:1",
                "redis://user:pa55?Secret@127.0.0.1:1",
                "redis://user:pa55-Secret@[::1:1",
                "redis://user:pa55-Secret@[::1]:x",
                "redis://user:pa55-Secret@[zz::1]:1",
                "rediss://user:pa55-Secret@127.0.0.1:x/0",
                "redis://user:pa55-Secret@@127.0.0.1:1",
                "redis://user:pa55-Secret@127.0.0.1:1/0/",
                "redis://user:pa55-Secret@127.0.0.1:1/99999999999");
    }

    @ParameterizedTest
    @MethodSource("malformedUrls")
    void malformedUrl_neverPrintsThePassword(String url) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        StringWriter escaped = new StringWriter();
        int code = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try {
                return StandaloneDashboard.run(
                        new String[] {"--redis", url, "--port", "0"},
                        Map.of(),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
            } catch (RuntimeException e) { // what the JVM would print for an exception main let escape
                e.printStackTrace(new PrintWriter(escaped));
                return -1;
            }
        });
        String all = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8) + escaped;
        assertThat(all).as("output for %s", url).doesNotContain("pa55").doesNotContain("Secret");
        assertThat(code).as("exit status for %s: %s", url, all).isEqualTo(2);
    }
}
