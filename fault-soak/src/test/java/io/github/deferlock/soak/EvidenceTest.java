package io.github.deferlock.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Evidence}: what a violating schedule leaves behind, and that a second one never overwrites it. */
final class EvidenceTest {

    @Test
    void keep_writesTheEventsAndEachClientsOutput_andASecondRunOfTheSeedGetsItsOwnDirectory(@TempDir Path root)
            throws Exception {
        Map<String, List<String>> outputs = new LinkedHashMap<>();
        outputs.put("client-1", List.of("READY", "Exception in thread \"holder-r1\" java.lang.ClassCastException"));
        outputs.put("client-2", List.of("READY"));

        Path first =
                Evidence.keep(root.resolve("kept"), 38, "cluster", List.of("ENQ j1 10", "H j1 a 1 11 c0g0"), outputs);
        Path second = Evidence.keep(root.resolve("kept"), 38, "cluster", List.of("ENQ j2 20"), Map.of());

        assertThat(first.getFileName()).hasToString("seed-38-cluster");
        assertThat(Files.readAllLines(first.resolve("events.txt"))).containsExactly("ENQ j1 10", "H j1 a 1 11 c0g0");
        assertThat(Files.readAllLines(first.resolve("client-1.txt")))
                .containsExactly("READY", "Exception in thread \"holder-r1\" java.lang.ClassCastException");
        assertThat(Files.readAllLines(first.resolve("client-2.txt"))).containsExactly("READY");
        assertThat(second.getFileName()).hasToString("seed-38-cluster-2");
        assertThat(Files.readAllLines(second.resolve("events.txt"))).containsExactly("ENQ j2 20");
        assertThat(Files.readAllLines(first.resolve("events.txt"))).hasSize(2); // untouched
    }
}
