package io.github.deferlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.testing.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs every benchmark in its tiny configuration and checks the shape of what it writes, not the figures. */
final class ResultsSchemaTest {

    @Test
    void tinyRun_writesEveryMetricIdWithItsFields(@TempDir Path out) throws Exception {
        int status;
        try (RedisServer server = RedisServer.start()) {
            status = Bench.run(new String[] {"--tiny", "--redis", server.uri(), "--out", out.toString()});
        }

        assertThat(status).as("every benchmark group ran").isZero();
        JsonNode root = new ObjectMapper()
                .readTree(out.resolve("benchmarks/results.json").toFile());
        assertThat(root.size()).isEqualTo(Metrics.ALL.size());
        for (Metric m : Metrics.ALL) {
            JsonNode node = root.get(m.id());
            assertThat(node).as(m.id()).isNotNull();
            assertThat(node.get("unit").asText()).as(m.id() + " unit").isEqualTo(m.unit());
            assertThat(node.get("better").asText()).as(m.id() + " better").isIn("higher", "lower");
            assertThat(node.get("deferlock").isNumber())
                    .as(m.id() + " deferlock")
                    .isTrue();
            for (String peer : new String[] {"raw", "redisson", "seed"}) {
                JsonNode v = node.get(peer);
                assertThat(v == null || v.isNumber() || v.isNull())
                        .as(m.id() + " " + peer)
                        .isTrue();
            }
        }
        String md = Files.readString(out.resolve("docs/benchmarks.md"));
        assertThat(md).contains("| JDK |", "| Redis |", "| CPU |", "## What limits the missed figures");
        for (Metric m : Metrics.ALL) {
            assertThat(md).contains("`" + m.id() + "`");
        }
    }

    @Test
    void results_writeNullForAMissingFigureAndMarkTheTarget(@TempDir Path out) throws Exception {
        Results r = new Results();
        r.put("lock.uncontended.t1", "deferlock", 100);
        r.put("lock.uncontended.t1", "raw", 100);
        r.put("lock.uncontended.t1", "redisson", 50);
        r.write(out.resolve("results.json"));

        JsonNode root = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(root.get("lock.uncontended.t1").get("met").asBoolean()).isTrue();
        assertThat(root.get("lock.uncontended.t8").get("deferlock").isNull()).isTrue();
        assertThat(Results.read(out.resolve("results.json"))
                        .get("lock.uncontended.t1")
                        .sides())
                .containsEntry("redisson", 50.0);
    }
}
