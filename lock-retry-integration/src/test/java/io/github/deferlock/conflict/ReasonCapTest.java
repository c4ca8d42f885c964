package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A dead letter's reason quotes a failure's text at most {@link ConflictAwareHandler#MAX_QUOTED_CHARS} long. */
final class ReasonCapTest {

    @Test
    void longText_isCutWithAnEllipsis_shortTextIsKept() {
        String huge = "x".repeat(200_000);
        String cut = ConflictAwareHandler.capped(huge);
        assertThat(cut).hasSize(ConflictAwareHandler.MAX_QUOTED_CHARS).endsWith("…");
        assertThat(ConflictAwareHandler.capped("boom")).isEqualTo("boom");
        String exact = "y".repeat(ConflictAwareHandler.MAX_QUOTED_CHARS);
        assertThat(ConflictAwareHandler.capped(exact)).isEqualTo(exact);
    }
}
