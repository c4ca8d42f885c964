package io.github.deferlock.consumer.internal;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** Issue 26: a lane survives whatever its work throws, an {@link Error} included, and keeps its order. */
final class KeyedLanesTest {

    @Test
    void anErrorFromTheWork_doesNotEndTheLane() {
        List<String> done = new CopyOnWriteArrayList<>();
        ExecutorService executor = Executors.newFixedThreadPool(1);
        try {
            KeyedLanes<String> lanes = new KeyedLanes<>(1, executor, w -> {
                if (w.startsWith("assert")) {
                    throw new AssertionError(w);
                }
                if (w.startsWith("fail")) {
                    throw new IllegalStateException(w);
                }
                done.add(w);
            });
            lanes.submit(7, "a");
            lanes.submit(7, "assert-b");
            lanes.submit(7, "c");
            lanes.submit(7, "fail-d");
            lanes.submit(7, "e");
            await().atMost(Duration.ofSeconds(30)).until(() -> done.equals(List.of("a", "c", "e")));
        } finally {
            executor.shutdownNow();
        }
    }
}
