package io.github.deferlock.consumer.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

final class HandlingLogTest {

    @Test
    void ordered_hasNoInversions_andAReplayIsADuplicate() {
        HandlingLog log = HandlingLog.of(List.of("a 0 a0", "b 0 b0", "a 1 a1", "a 1 a1", "b 1 b1", "a 2 a2"));
        assertThat(log.firstHandlings()).isEqualTo(5);
        assertThat(log.duplicates()).isEqualTo(1);
        assertThat(log.inversions()).isZero();
    }

    @Test
    void anOvertakenMessage_isAnInversion() {
        HandlingLog log = HandlingLog.of(List.of("a 0 a0", "a 2 a2", "a 1 a1", "a 3 a3"));
        assertThat(log.inversions()).isEqualTo(1);
        assertThat(log.firstInversions()).containsExactly("a: 1 after 2");
        assertThat(log.duplicates()).isZero();
    }

    @Test
    void aRepeat_namesTheIndexOfItsFirstHandling() {
        HandlingLog log = HandlingLog.of(List.of("a 0 a0", "b 0 b0", "a 0 a0", "b 0 b0"));
        assertThat(log.repeats())
                .containsExactly(new HandlingLog.Repeat("a0", 0, 2), new HandlingLog.Repeat("b0", 1, 3));
    }
}
