package io.github.deferlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The parts of {@link FeatureCostRuns} and {@link FeatureCostProbe} that need no Redis and no second build. */
final class FeatureCostTest {

    @Test
    void probe_usesTheWorkloadsOfQueueRuns() {
        assertThat(FeatureCostProbe.FAR_MS).isEqualTo(QueueRuns.FAR);
        assertThat(FeatureCostProbe.payload(7)).isEqualTo(QueueSide.payload(7, 0));
    }

    @Test
    void resultLine_isReadBackWithItsJar() {
        Map<String, String> got =
                FeatureCostProbe.parse("featureCost /x/delay-core.jar enqueue=10.5 drain=3 bytesPerJob=330.4");

        assertThat(got)
                .containsEntry("jar", "/x/delay-core.jar")
                .containsEntry("enqueue", "10.5")
                .containsEntry("bytesPerJob", "330.4");
        assertThatThrownBy(() -> FeatureCostProbe.parse("something else")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void spreadNote_setsEachRoundsRatioBesideBothSpreads() {
        Results r = new Results();
        String id = FeatureCostRuns.PREFIX + "drain.t8";
        for (double v : new double[] {100, 110, 90}) {
            r.add(id, Sides.DEFERLOCK, v);
        }
        for (double v : new double[] {100, 100, 120}) {
            r.add(id, FeatureCostRuns.BASELINE, v);
        }
        String note = new FeatureCostRuns(null, Settings.smoke(), r, null, null).spread(id);

        assertThat(note)
                .contains("1.000, 1.100, 0.750")
                .contains("this build 20.0 %", "baseline 20.0 %")
                .contains("2 of 3 rounds' ratios within 1 ± 20.0 %");
    }

    @Test
    void withoutABaseline_everyIdIsNotMeasuredWithTheCommandToRun() {
        Results r = new Results();
        new FeatureCostRuns(null, Settings.smoke(), r, null, null).run();

        assertThat(r.side(FeatureCostRuns.PREFIX + "memory.bytesPerJob", FeatureCostRuns.BASELINE)
                        .unavailable())
                .contains("--compare-with");
    }
}
