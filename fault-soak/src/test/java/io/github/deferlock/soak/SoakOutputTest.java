package io.github.deferlock.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Soak#leftovers}: the note on recorded jobs still in the queue when the counts said it was empty. */
final class SoakOutputTest {

    private static History history(History.QueueEnd end) {
        return new History.Builder().line("ENQ j1 10").line("ENQ j2 11").build(end);
    }

    @Test
    void leftovers_countsReadZeroButAJobIsStillThere_namesItAndItsState() {
        History h = history(new History.QueueEnd(0, 0, Map.of("j1", "DUE", "j2", "DEAD"), Map.of("j2", "x")));

        assertThat(Soak.leftovers(h)).hasValueSatisfying(note -> assertThat(note)
                .contains("1 recorded job(s)")
                .contains("j1=DUE")
                .doesNotContain("j2"));
    }

    @Test
    void leftovers_nothingLeftOrOnlyDeadLettersOrCountsAlreadyNonZero_saysNothing() {
        assertThat(Soak.leftovers(history(History.QueueEnd.empty()))).isEmpty();
        assertThat(Soak.leftovers(history(new History.QueueEnd(0, 0, Map.of("j2", "DEAD"), Map.of("j2", "x")))))
                .isEmpty();
        // non-zero counts are the stuck check's to report
        assertThat(Soak.leftovers(history(new History.QueueEnd(1, 0, Map.of("j1", "DUE"), Map.of()))))
                .isEmpty();
    }
}
