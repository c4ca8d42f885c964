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
    void defaultRun_exitsZero_andReportsNoDuplicatesAndNothingLost() {
        assertThat(run()).as(err.toString(StandardCharsets.UTF_8)).isZero();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).containsPattern("redis-server \\d+\\.\\d+\\.\\d+");
        assertThat(text).containsPattern("(?m)^ +THROW +SLEEP_RETRY +DEFER$");
        assertThat(text).containsPattern("(?m)^duplicates \\(must be 0\\) +0 +0 +0$");
        assertThat(text).containsPattern("(?m)^lost \\(must be 0\\) +0 +0 +0$");
        assertThat(text).containsPattern("(?m)^lost updates \\(must be 0\\) +0 +0 +0$");
        assertThat(text).containsPattern("(?m)^events processed +3000/3000 +3000/3000 +3000/3000$");
        assertThat(text).contains("OK: every event processed exactly once");
    }

    @Test
    void kafkaSource_startsItsBroker_andProcessesEveryEventOnce() {
        assertThat(run("--source", "kafka", "--events", "300", "--strategies", "SLEEP_RETRY,DEFER"))
                .as(err.toString(StandardCharsets.UTF_8))
                .isZero();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("source: Kafka broker");
        assertThat(text).containsPattern("(?m)^events processed +300/300 +300/300$");
        assertThat(text).contains("OK: every event processed exactly once");
    }

    @Test
    void rabbitSource_startsItsBroker_andProcessesEveryEventOnce() {
        assertThat(run("--source", "rabbit", "--events", "300", "--strategies", "SLEEP_RETRY,DEFER"))
                .as(err.toString(StandardCharsets.UTF_8))
                .isZero();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("source: AMQP 0-9-1 broker");
        assertThat(text).containsPattern("(?m)^events processed +300/300 +300/300$");
        assertThat(text).contains("OK: every event processed exactly once");
    }

    @Test
    void badValue_exitsTwoNamingTheOptionAndValue() {
        assertThat(run("--events", "lots")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--events").contains("'lots'");
        err.reset();
        assertThat(run("--strategies", "THROW,PANIC")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("PANIC");
        err.reset();
        assertThat(run("--hot-share", "1.5")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--hot-share");
        err.reset();
        assertThat(run("--source", "sqs")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("'sqs'").contains("kafka or rabbit");
    }

    @Test
    void help_explainsAndExitsZero() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("usage")
                .contains("--redis")
                .contains("--events")
                .contains("--strategies");
    }

    @Test
    void unknownOption_exitsTwoNamingIt() {
        assertThat(run("--nope")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--nope");
    }
}
