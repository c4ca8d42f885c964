package io.github.deferlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

/** The endurance run's flatness check ({@link Flatness}): what it compares and what it calls growth. */
final class FlatnessTest {

    /** Samples every 10 s over 30 minutes of {@code f(seconds)}. */
    private static List<Flatness.Point> curve(DoubleUnaryOperator f) {
        List<Flatness.Point> points = new ArrayList<>();
        for (int t = 10; t <= 1800; t += 10) {
            points.add(new Flatness.Point(t, f.applyAsDouble(t)));
        }
        return points;
    }

    private static Flatness.Verdict check(List<Flatness.Point> points) {
        return Flatness.check("c", points, 300, 1800, 60, Flatness.LIMIT, 0);
    }

    @Test
    void check_steadyGrowthAfterWarmup_grew() {
        // a slow leak: +10 % over the 25 minutes after the warm-up
        Flatness.Verdict v = check(curve(t -> 1000 + Math.max(0, t - 300) * 100 / 1500.0));

        assertThat(v.grew()).isTrue();
        assertThat(v.first()).isBetween(1000.0, 1004.0);
        assertThat(v.last()).isBetween(1096.0, 1100.0);
        assertThat(v.growth()).isBetween(0.09, 0.10);
    }

    @Test
    void check_growthOnlyDuringWarmup_flat() {
        // rises tenfold in the first 5 minutes (pools filling, JIT, caches), then stays
        Flatness.Verdict v = check(curve(t -> t < 300 ? t * 3 : 1000));

        assertThat(v.grew()).isFalse();
        assertThat(v.first()).isEqualTo(1000);
        assertThat(v.last()).isEqualTo(1000);
    }

    @Test
    void check_justUnderAndJustOverTheLimit() {
        assertThat(check(curve(t -> t < 1740 ? 1000 : 1049)).grew()).isFalse();
        assertThat(check(curve(t -> t < 1740 ? 1000 : 1051)).grew()).isTrue();
    }

    @Test
    void check_oneSpikeInEachWindow_isOutvotedByTheMedian() {
        // one sample of each window an outlier (a GC that had not finished, a burst of connections)
        Flatness.Verdict v = check(curve(t -> t == 310 ? 500 : t == 1790 ? 5000 : 1000));

        assertThat(v.grew()).isFalse();
        assertThat(v.firstSamples()).isEqualTo(6);
        assertThat(v.lastSamples()).isEqualTo(7);
    }

    @Test
    void check_shrinking_flat() {
        assertThat(check(curve(t -> 2000 - t / 2)).grew()).isFalse();
    }

    @Test
    void check_slackForSmallCounts() {
        // 20 → 22 threads is +10 %, but within a slack of 2
        List<Flatness.Point> threads = curve(t -> t < 1740 ? 20 : 22);
        assertThat(Flatness.check("threads", threads, 300, 1800, 60, Flatness.LIMIT, 2)
                        .grew())
                .isFalse();
        assertThat(Flatness.check("threads", threads, 300, 1800, 60, Flatness.LIMIT, 0)
                        .grew())
                .isTrue();
    }

    @Test
    void check_fromZero_anyRiseGrew() {
        Flatness.Verdict v = check(curve(t -> t < 1740 ? 0 : 3));

        assertThat(v.grew()).isTrue();
        assertThat(v.growth()).isNaN();
    }

    @Test
    void check_shortMode_comparesAQuarterInWithTheEnd() {
        // 2 minutes, warm-up 30 s, windows 30 s: [30, 60) against [90, 120]
        List<Flatness.Point> points = new ArrayList<>();
        for (int t = 10; t <= 120; t += 10) {
            points.add(new Flatness.Point(t, t < 30 ? 0 : t < 90 ? 100 : 110));
        }
        Flatness.Verdict v = Flatness.check("c", points, 30, 120, 30, Flatness.LIMIT, 0);

        assertThat(v.firstSamples()).isEqualTo(3);
        assertThat(v.lastSamples()).isEqualTo(4);
        assertThat(v.grew()).isTrue();
        assertThat(v.growth()).isEqualTo(0.10);
    }

    @Test
    void check_emptyWindow_refused() {
        List<Flatness.Point> points = List.of(new Flatness.Point(10, 1), new Flatness.Point(1800, 1));

        assertThatThrownBy(() -> check(points))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no sample in the first window [300.0, 360.0)");
    }

    @Test
    void check_overlappingWindows_refused() {
        assertThatThrownBy(() -> Flatness.check("c", curve(t -> 1), 100, 200, 60, Flatness.LIMIT, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overlap");
    }

    @Test
    void median() {
        assertThat(Flatness.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2);
        assertThat(Flatness.median(List.of(4.0, 1.0, 2.0, 3.0))).isEqualTo(2.5);
    }
}
