package io.github.deferlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No figure of the "Load held" section of docs/guarantees.md is typed by hand: the block is what {@code ./endurance
 * --render-only} writes from the committed benchmarks/endurance.json, whose verdicts are what today's flatness rule
 * says of its samples.
 */
final class EnduranceFiguresTest {

    private static final Path JSON = Path.of("endurance.json");
    private static final Path PAGE = Path.of("../docs/guarantees.md");

    private static JsonNode committed() throws Exception {
        return new ObjectMapper().readTree(JSON.toFile());
    }

    @Test
    void guaranteesBlock_isRenderedFromTheCommittedRun() throws Exception {
        String block = EnduranceReport.committedBlock(Files.readString(PAGE, StandardCharsets.UTF_8));

        assertThat(block).as("docs/guarantees.md has the endurance markers").isNotNull();
        assertThat(block).isEqualTo(EnduranceReport.block(committed()));
    }

    @Test
    void committedVerdicts_areTheFlatnessRuleAppliedToTheSamples() throws Exception {
        JsonNode doc = committed();
        ObjectNode judged = doc.deepCopy();

        Endurance.judgeInto(judged, false);

        assertThat(judged.get("flatness")).isEqualTo(doc.get("flatness"));
        assertThat(judged.get("verdict")).isEqualTo(doc.get("verdict"));
    }

    /**
     * The curves the conflicts view's 15-minute buckets feed (Redis keys, used_memory) are judged once those
     * reached their steady count (960 s), in a run long enough for it; every other curve, and every curve of a
     * short run, from the run's warm-up.
     */
    @Test
    void warmup_curvesFedByConflictBuckets_startAfterTheBucketsSteadyCount_whenTheRunIsLongEnough() {
        assertThat(Endurance.warmup("redis.usedMemory", 300, 1800, 60)).isEqualTo(960);
        assertThat(Endurance.warmup("redis.keys", 300, 1800, 60)).isEqualTo(960);
        assertThat(Endurance.warmup("jvm1.threads", 300, 1800, 60)).isEqualTo(300);
        assertThat(Endurance.warmup("redis.connectedClients", 300, 1800, 60)).isEqualTo(300);
        assertThat(Endurance.warmup("redis.usedMemory", 30, 120, 30))
                .as("a 2-minute run keeps its warm-up")
                .isEqualTo(30);
        assertThat(Endurance.warmup("redis.usedMemory", 300, 1000, 30))
                .as("the later window would overlap the last one")
                .isEqualTo(300);
    }

    @Test
    void committedCharts_exist() {
        for (String chart : EnduranceReport.CHARTS) {
            assertThat(Path.of("../docs", chart)).isRegularFile();
        }
    }

    @Test
    void writeBlock_replacesOnlyTheBlockBetweenTheMarkers(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("guarantees.md");
        Files.writeString(
                page,
                "# x\n\nbefore\n" + EnduranceReport.START + "\n+0.0 % typed by hand\n" + EnduranceReport.END
                        + "\nafter\n");

        assertThat(EnduranceReport.writeBlock(page, committed())).isTrue();

        String text = Files.readString(page);
        assertThat(text)
                .startsWith("# x\n\nbefore\n" + EnduranceReport.START + "\n")
                .endsWith(EnduranceReport.END + "\nafter\n")
                .doesNotContain("typed by hand");
        assertThat(EnduranceReport.committedBlock(text)).isEqualTo(EnduranceReport.block(committed()));
    }
}
