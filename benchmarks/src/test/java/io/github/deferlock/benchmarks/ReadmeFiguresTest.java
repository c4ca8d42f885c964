package io.github.deferlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No benchmark figure in the README or in docs/benchmarks.md is typed by hand: both are what {@code ./bench
 * --render-only} writes from the committed benchmarks/results.json. A figure edited by hand, or a results.json
 * committed without re-rendering, fails here.
 */
final class ReadmeFiguresTest {

    private static final Path RESULTS = Path.of("results.json");
    private static final Path README = Path.of("../README.md");
    private static final Path PAGE = Path.of("../docs/benchmarks.md");

    @Test
    void readmeSummary_isTheTemplateFilledFromTheCommittedResults() throws Exception {
        Results committed = Results.read(RESULTS);
        String block = Report.readmeBlock(Files.readString(README, StandardCharsets.UTF_8));
        assertThat(block).as("README.md has the bench:summary markers").isNotNull();
        assertThat(block).isEqualTo(Report.readmeSummary(committed));
        assertThat(block).doesNotContain("n/a");
    }

    @Test
    void benchmarksPage_isRenderedFromTheCommittedResults() throws Exception {
        Results committed = Results.read(RESULTS);
        assertThat(Files.readString(PAGE, StandardCharsets.UTF_8)).isEqualTo(Report.render(committed));
    }

    /**
     * Issue 30: every curve id of the committed results.json with points has its chart in docs/charts/ and its
     * section on the page, which links the chart and names every side with points.
     */
    @Test
    void everyCurveWithPoints_hasItsChartAndItsSection() throws Exception {
        Results committed = Results.read(RESULTS);
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        assertThat(page).contains("## Curves");
        for (Curve c : Curves.ALL) {
            String section = section(page, c.id());
            assertThat(section).as(c.id() + " has a section").isNotEmpty();
            var curve = committed.curve(c.id());
            if (curve.isEmpty()) {
                continue;
            }
            assertThat(Path.of("../docs/charts/" + c.chartFile()))
                    .as(c.id() + "'s chart")
                    .isRegularFile();
            assertThat(section).contains("](charts/" + c.chartFile() + ")");
            for (String side : curve.keySet()) {
                assertThat(section).as(c.id() + " names " + side).contains(" " + side + " ");
            }
        }
    }

    /** The text of the page's section {@code ### `id`}, up to the next heading; empty when there is none. */
    static String section(String page, String id) {
        int a = page.indexOf("\n### `" + id + "`\n");
        if (a < 0) {
            return "";
        }
        int b = page.indexOf("\n#", a + 1);
        return b < 0 ? page.substring(a) : page.substring(a, b);
    }

    @Test
    void writeReadme_replacesOnlyTheBlockBetweenTheMarkers(@TempDir Path dir) throws Exception {
        Path readme = dir.resolve("README.md");
        Files.writeString(
                readme,
                "# x\n\nbefore\n" + Report.README_START + "\n1.21 × typed by hand\n" + Report.README_END + "\nafter\n");
        Results committed = Results.read(RESULTS);
        assertThat(Report.writeReadme(readme, committed)).isTrue();
        String text = Files.readString(readme);
        assertThat(text)
                .startsWith("# x\n\nbefore\n" + Report.README_START + "\n")
                .endsWith(Report.README_END + "\nafter\n");
        assertThat(text).doesNotContain("typed by hand");
        assertThat(Report.readmeBlock(text)).isEqualTo(Report.readmeSummary(committed));
    }

    @Test
    void writeReadme_leavesAReadmeWithoutMarkersAlone(@TempDir Path dir) throws Exception {
        Path readme = dir.resolve("README.md");
        Files.writeString(readme, "# x\n");
        assertThat(Report.writeReadme(readme, Results.read(RESULTS))).isFalse();
        assertThat(Files.readString(readme)).isEqualTo("# x\n");
    }

    @Test
    void readmeTemplate_namesOnlyRealMetricIds() {
        assertThat(Report.placeholderIds(Report.template("readme-summary.md")))
                .isNotEmpty()
                .allSatisfy(id -> assertThat(Metrics.byId(id)).as(id).isPresent());
    }
}
