package io.github.deferlock.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.consumer.ConsumerListener;
import io.github.deferlock.consumer.ConsumerSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Issue 26: the handler lanes of Streams and RabbitMQ. With an order key, a key's items run one at a time in
 * order while other keys run; without one, any free thread takes the next item; a stop waits for what runs and
 * drops what had not started.
 */
final class HandlerLanesTest {
    private static ConsumerSettings<String, ConsumerListener> settings(boolean ordered) {
        return new ConsumerSettings<>(
                null, null, 2, false, 1, null, new ConsumerListener() {}, ordered ? m -> m : null);
    }

    @Test
    void ordered_aBlockedKeyHoldsBackItsLaterItems_butNotOtherKeys() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<String> done = new CopyOnWriteArrayList<>();
        HandlerLanes<String> lanes = new HandlerLanes<>(
                "t",
                settings(true),
                () -> true,
                w -> {
                    if (w.equals("a1")) {
                        block(release);
                    }
                    done.add(w);
                },
                w -> {});
        try {
            // "a" and "b" must land on different lanes of 2: pick hashes 0 and 1
            lanes.submit(0, "a1");
            lanes.submit(0, "a2");
            lanes.submit(1, "b1");
            lanes.submit(1, "b2");
            await().atMost(Duration.ofSeconds(30)).until(() -> done.equals(List.of("b1", "b2")));
            release.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> done.equals(List.of("b1", "b2", "a1", "a2")));
        } finally {
            assertThat(lanes.stop(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)))
                    .isTrue();
        }
    }

    @Test
    void unordered_anyFreeThreadTakesTheNextItem() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<String> done = new CopyOnWriteArrayList<>();
        HandlerLanes<String> lanes = new HandlerLanes<>(
                "t",
                settings(false),
                () -> true,
                w -> {
                    if (w.equals("x1")) {
                        block(release);
                    }
                    done.add(w);
                },
                w -> {});
        try {
            lanes.submit(0, "x1");
            lanes.submit(0, "x2"); // same hash: with lanes it would wait behind x1
            await().atMost(Duration.ofSeconds(30)).until(() -> done.equals(List.of("x2")));
            release.countDown();
        } finally {
            assertThat(lanes.stop(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)))
                    .isTrue();
        }
    }

    @Test
    void stop_waitsForRunningItems_andDropsThoseNotStarted() throws Exception {
        AtomicBoolean going = new AtomicBoolean(true);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> done = new CopyOnWriteArrayList<>();
        List<String> dropped = new CopyOnWriteArrayList<>();
        HandlerLanes<String> lanes = new HandlerLanes<>(
                "t",
                settings(true),
                going::get,
                w -> {
                    started.countDown();
                    block(release);
                    done.add(w);
                },
                dropped::add);
        lanes.submit(0, "running");
        lanes.submit(0, "queued");
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        going.set(false);
        assertThat(lanes.stop(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100)))
                .as("the running item holds the drain past its deadline")
                .isFalse();
        release.countDown();
        assertThat(done).isEmpty(); // interrupted by the stop: its work never finished
        assertThat(dropped).isEmpty();

        AtomicBoolean going2 = new AtomicBoolean(true);
        CountDownLatch release2 = new CountDownLatch(1);
        HandlerLanes<String> lanes2 = new HandlerLanes<>(
                "t",
                settings(true),
                going2::get,
                w -> {
                    block(release2);
                    done.add(w);
                },
                dropped::add);
        lanes2.submit(0, "first");
        lanes2.submit(0, "second");
        await().atMost(Duration.ofSeconds(30)).until(() -> lanes2.running() == 1);
        going2.set(false);
        release2.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> dropped.equals(List.of("second")));
        assertThat(done).containsExactly("first");
        assertThat(lanes2.stop(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)))
                .isTrue();
    }

    private static void block(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
