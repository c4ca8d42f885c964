package io.github.deferlock.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code java} block of the README must appear, line for line (indentation aside), in a test source
 * of the project, so every snippet a reader copies is compiled and run by {@code mvn verify}.
 */
final class ReadmeSnippetsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyJavaBlock_isCompiledByATest() throws IOException {
        List<List<String>> blocks = javaBlocks(Files.readAllLines(ROOT.resolve("README.md")));
        assertThat(blocks).as("the README has java snippets").hasSizeGreaterThanOrEqualTo(2);
        List<List<String>> sources = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".java")
                            && f.toString().contains("/src/test/java/")
                            && !f.toString().contains("/target/"))
                    .collect(Collectors.toList())) {
                sources.add(normalise(Files.readAllLines(p)));
            }
        }
        for (List<String> block : blocks) {
            List<String> wanted = normalise(block);
            assertThat(sources.stream().anyMatch(src -> contains(src, wanted)))
                    .as("README snippet is not in any test:\n%s", String.join("\n", block))
                    .isTrue();
        }
    }

    private static List<List<String>> javaBlocks(List<String> lines) {
        List<List<String>> blocks = new ArrayList<>();
        List<String> current = null;
        for (String line : lines) {
            if (current == null && line.strip().equals("```java")) {
                current = new ArrayList<>();
            } else if (current != null && line.strip().equals("```")) {
                blocks.add(current);
                current = null;
            } else if (current != null) {
                current.add(line);
            }
        }
        return blocks;
    }

    private static List<String> normalise(List<String> lines) {
        return lines.stream().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.toList());
    }

    private static boolean contains(List<String> haystack, List<String> needle) {
        return java.util.Collections.indexOfSubList(haystack, needle) >= 0 || needleWithoutLastBraces(haystack, needle);
    }

    /** A snippet may close a block whose closing brace the test puts after its own assertions. */
    private static boolean needleWithoutLastBraces(List<String> haystack, List<String> needle) {
        List<String> n = new ArrayList<>(needle);
        while (!n.isEmpty() && n.get(n.size() - 1).equals("}")) {
            n.remove(n.size() - 1);
            if (java.util.Collections.indexOfSubList(haystack, n) >= 0) {
                return true;
            }
        }
        return false;
    }
}
