package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.internal.ClaimPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The handler pool and its buffer on a fake clock, without Redis: real threads, time only from the fake. */
final class HandlerPoolTest {
    private static final long MS = 1_000_000L;
    private final AtomicLong now = new AtomicLong(7 * MS);
    private final List<String> ran = new CopyOnWriteArrayList<>();
    private final List<Long> dues = new CopyOnWriteArrayList<>();
    private final List<String> stale = new CopyOnWriteArrayList<>();
    private final AtomicInteger roomMade = new AtomicInteger();
    private final CountDownLatch release = new CountDownLatch(1);
    private HandlerPool<String> pool;

    private HandlerPool<String> pool(int concurrency, long runNanos) {
        ClaimPolicy policy = new ClaimPolicy(concurrency, 10, Duration.ofSeconds(30), Duration.ofSeconds(1));
        HandlerPool.Runner<String> runner = new HandlerPool.Runner<>() {
            @Override
            public void run(Job<String> job, long start, long due) {
                if (job.id().startsWith("block")) {
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                now.addAndGet(runNanos);
                dues.add(due);
                ran.add(job.id());
            }

            @Override
            public void giveBackStale(Job<String> job) {
                stale.add(job.id());
            }
        };
        pool = new HandlerPool<>("q", policy, now::get, runner, roomMade::incrementAndGet, "test", false);
        return pool;
    }

    @AfterEach
    void shutdown() {
        release.countDown();
        if (pool != null) {
            pool.close();
            pool.shutdownNow();
        }
    }

    private static List<Job<String>> jobs(String... ids) {
        return java.util.Arrays.stream(ids).map(id -> FakeCalls.job(id, 1)).toList();
    }

    @Test
    void offer_jobsRunAndTheirDueTimeIsPlacedOnTheTicker() {
        HandlerPool<String> p = pool(2, MS);
        // claim sent at 7 ms, answered at 9 ms; the server's clock read 1_000_100 ms, the jobs were due at 1_000_000
        assertThat(p.offer(jobs("a", "b", "c"), 7 * MS, 9 * MS, 1_000_100_000L)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 3);
        assertThat(ran).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(dues).containsOnly(8 * MS - 100 * MS);
        assertThat(roomMade).as("each finished run made room").hasPositiveValue();
    }

    @Test
    void claimSize_freeThreadsUntilARunFinished_thenClaimsAhead() {
        HandlerPool<String> p = pool(2, MS);
        assertThat(p.claimSize(now.get())).isEqualTo(2);
        p.offer(jobs("a"), now.get(), now.get(), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> p.averageRunNanos() >= 0);
        assertThat(p.averageRunNanos()).isEqualTo(MS);
        assertThat(p.claimSize(now.get())).as("1 ms runs: a full batch ahead").isEqualTo(10);
    }

    @Test
    void claimSize_runStuckLongerThanTheWindow_noClaimAhead() {
        HandlerPool<String> p = pool(1, MS);
        p.offer(jobs("a"), now.get(), now.get(), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> p.averageRunNanos() >= 0);
        p.offer(jobs("block"), now.get(), now.get(), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> !p.noRunInProgress());
        assertThat(p.claimSize(now.get())).as("running, not stuck yet").isEqualTo(10);
        now.addAndGet(1_001 * MS);
        assertThat(p.claimSize(now.get())).as("stuck past the 1 s window").isZero();
    }

    @Test
    void takeStale_bufferedJobsThatWaitedHalfTheVisibility() {
        HandlerPool<String> p = pool(1, MS);
        p.offer(jobs("block", "b", "c"), now.get(), now.get(), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> !p.noRunInProgress());
        assertThat(p.hasBuffered()).isTrue();
        assertThat(p.oldestStaleAt()).isEqualTo(7 * MS + 15_000 * MS + 1);
        assertThat(p.takeStale(now.get() + 15_000 * MS)).isEmpty();
        assertThat(p.takeStale(now.get() + 15_000 * MS + 1)).extracting(Job::id).containsExactly("b", "c");
        assertThat(p.hasBuffered()).isFalse();
    }

    @Test
    void handlerTakesAStaleJob_givenBackNotRun() {
        HandlerPool<String> p = pool(1, MS);
        p.offer(jobs("block", "late"), now.get(), now.get(), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> !p.noRunInProgress());
        now.addAndGet(15_001 * MS);
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> stale.size() == 1);
        assertThat(stale).containsExactly("late");
        assertThat(ran).containsExactly("block");
    }

    @Test
    void close_returnsUnstartedJobs_laterOffersRefused() throws InterruptedException {
        HandlerPool<String> p = pool(1, MS);
        p.offer(jobs("block", "b"), now.get(), now.get(), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> !p.noRunInProgress());
        assertThat(p.close()).extracting(Job::id).containsExactly("b");
        assertThat(p.offer(jobs("c"), now.get(), now.get(), 0)).isFalse();
        p.shutdown();
        release.countDown();
        assertThat(p.awaitTermination(TimeUnit.SECONDS.toNanos(10))).isTrue();
        assertThat(ran).containsExactly("block");
    }
}
