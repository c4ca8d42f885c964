package io.github.deferlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class ReportTest {

    @Test
    void missedRatio_showsAThirdDecimalOnlyWhenTwoWouldReadAsTheTarget() {
        assertThat(Report.missedRatio(0.796, 0.80)).isEqualTo("0.796");
        assertThat(Report.missedRatio(0.88, 0.95)).isEqualTo("0.88");
        assertThat(Report.missedRatio(1.2234, 3)).isEqualTo("1.22");
    }
}
