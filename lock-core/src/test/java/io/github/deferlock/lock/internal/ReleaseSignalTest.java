package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

final class ReleaseSignalTest {
    private final ReleaseSignal signal = new ReleaseSignal();

    @Test
    void await_returnsAtOnce_whenASignalCameAfterTheCountWasRead() throws Exception {
        long seen = signal.count();
        signal.raise();
        long before = System.nanoTime();
        signal.await(seen, TimeUnit.SECONDS.toNanos(30));
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(5));
        assertThat(signal.count()).isEqualTo(seen + 1);
    }

    @Test
    void raise_wakesAWaiter() throws Exception {
        long seen = signal.count();
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
            try {
                signal.await(seen, TimeUnit.SECONDS.toNanos(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        await().pollDelay(Duration.ofMillis(50)).atMost(Duration.ofSeconds(5)).until(() -> !waiter.isDone());
        signal.raise();
        waiter.get(5, TimeUnit.SECONDS);
    }
}
