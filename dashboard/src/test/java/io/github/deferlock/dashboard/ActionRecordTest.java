package io.github.deferlock.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ActionRecord#logLine()}: one line whatever the request named (issue 28). */
final class ActionRecordTest {

    @Test
    void logLine_escapesControlCharacters_soNoRecordForgesALine() {
        ActionRecord r = new ActionRecord(
                Instant.EPOCH,
                "token",
                "127.0.0.1",
                "purge",
                "q\r\naction=requeue-all actor=admin",
                List.of("a\nb", "\u001b[2Jc"),
                "refused: no such queue 'q\r\n'");

        String line = r.logLine();

        assertThat(line)
                .doesNotContain("\r")
                .doesNotContain("\n")
                .doesNotContain("\u001b")
                .isEqualTo("action=purge actor=token from=127.0.0.1 queue=q\\r\\naction=requeue-all actor=admin"
                        + " ids=[a\\nb, \\u001B[2Jc] outcome=refused: no such queue 'q\\r\\n'");
    }
}
