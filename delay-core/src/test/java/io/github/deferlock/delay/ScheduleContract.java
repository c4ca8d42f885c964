package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisDeployment;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.UnifiedJedis;

/**
 * The recurring-schedule contract, written once; {@link ScheduleContractIT} runs it on a standalone server, a
 * three-master cluster and a sentinel group. Two independent queue objects on two clients, each with its own
 * worker (so two schedule tickers), stand for two processes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ScheduleContract {
    private static final AtomicInteger SERIAL = new AtomicInteger();

    private RedisDeployment deployment;
    private UnifiedJedis redis;
    private UnifiedJedis other;

    abstract RedisDeployment start();

    @BeforeAll
    final void startDeployment() {
        deployment = start();
        redis = deployment.newClient();
        other = deployment.newClient();
    }

    @AfterAll
    final void stopDeployment() {
        other.close();
        redis.close();
        deployment.close();
    }

    @Test
    void twoWorkers_everySecond_eachSlotFiresOnce_noneSkipped() {
        String name = "sched-" + SERIAL.incrementAndGet();
        DelayQueue<Msg> a = DelayQueue.builder(redis, name, Msg.class).build();
        DelayQueue<Msg> b = DelayQueue.builder(other, name, Msg.class).build();
        a.schedules().upsert("tick", ScheduleSpec.fixedRate(Duration.ofSeconds(1)), new Msg("tick", 1));
        Set<String> handled = ConcurrentHashMap.newKeySet();
        AtomicInteger deliveries = new AtomicInteger();
        List<Long> lateMs = new java.util.concurrent.CopyOnWriteArrayList<>();
        JobHandler<Msg> handler = job -> {
            deliveries.incrementAndGet();
            handled.add(job.id());
            lateMs.add(Duration.between(job.dueAt(), ServerTime.now(redis)).toMillis()); // slot to handler
        };
        try (DelayQueueWorker<Msg> wa =
                        DelayQueueWorker.builder(a, handler).build().start();
                DelayQueueWorker<Msg> wb =
                        DelayQueueWorker.builder(b, handler).build().start()) {
            assertThat(wa.isRunning() && wb.isRunning()).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() >= 4);
            assertThat(b.schedules().remove("tick")).isTrue();
            // whatever fired before the removal is handled
            await().atMost(Duration.ofSeconds(30)).until(() -> a.size(JobState.DUE) + a.size(JobState.IN_FLIGHT) == 0);
        }
        System.out.printf("%s: slot to handler start, ms: %s%n", getClass().getSimpleName(), lateMs);
        assertThat(deliveries.get()).as("no job handled twice").isEqualTo(handled.size());
        assertThat(a.stats().enqueued()).as("one job per slot").isEqualTo(handled.size());
        TreeSet<Instant> slots = new TreeSet<>();
        for (String id : handled) {
            assertThat(id).startsWith("tick@");
            slots.add(Instant.parse(id.substring("tick@".length())));
        }
        long span = Duration.between(slots.first(), slots.last()).toSeconds();
        assertThat(slots).as("consecutive seconds, none skipped").hasSize((int) span + 1);
    }

    @Test
    void upsertInAnotherProcess_wakesAnIdleTicker_notAfterItsFallbackPoll() {
        String name = "sched-" + SERIAL.incrementAndGet();
        DelayQueue<Msg> a = DelayQueue.builder(redis, name, Msg.class).build();
        DelayQueue<Msg> b = DelayQueue.builder(other, name, Msg.class).build();
        Set<String> handled = ConcurrentHashMap.newKeySet();
        // the queue has a schedule (far off), so its tickers listen for upserts
        b.schedules().upsert("yearly", ScheduleSpec.fixedRate(Duration.ofDays(365)), new Msg("y", 0));
        try (DelayQueueWorker<Msg> wa = DelayQueueWorker.builder(a, job -> handled.add(job.id()))
                .build()
                .start()) {
            assertThat(wa.isRunning()).isTrue();
            // let a's ticker see nothing due and go to sleep for its fallback look (5 s)
            await().pollDelay(Duration.ofMillis(500)).until(() -> true);
            long t0 = System.nanoTime();
            b.schedules().upsert("soon", ScheduleSpec.fixedRate(Duration.ofSeconds(1)), new Msg("s", 0));
            await().atMost(Duration.ofSeconds(30)).until(() -> !handled.isEmpty());
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertThat(took)
                    .as("woken by the upsert's notice")
                    .isLessThan(Duration.ofMillis(Schedules.MAX_TICK_MS / 2));
            assertThat(b.schedules().remove("soon")).isTrue();
            assertThat(b.schedules().remove("yearly")).isTrue();
        }
    }

    @Test
    void upsert_listedWithNextFire_firedJobIsDueAtItsSlot() {
        String name = "sched-" + SERIAL.incrementAndGet();
        DelayQueue<Msg> a = DelayQueue.builder(redis, name, Msg.class).build();
        ScheduleInfo info = a.schedules().upsert("s", ScheduleSpec.fixedRate(Duration.ofSeconds(1)), new Msg("p", 7));
        Instant next = info.nextFire().orElseThrow();
        assertThat(DelayQueue.builder(other, name, Msg.class)
                        .build()
                        .schedules()
                        .list())
                .containsExactly(info);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            a.schedules().tick();
            return a.size(JobState.DUE) > 0;
        });
        List<Job<Msg>> jobs = a.claim(10);
        assertThat(jobs.get(0).id()).isEqualTo("s@" + next);
        assertThat(jobs.get(0).dueAt()).isEqualTo(next);
        assertThat(jobs.get(0).payload()).isEqualTo(new Msg("p", 7));
        assertThat(a.schedules().get("s").orElseThrow().nextFire().orElseThrow())
                .isAfter(next);
        assertThat(a.schedules().remove("s")).isTrue();
    }

    @Test
    void fixedDelay_twoWorkers_slowHandler_eachFireOnce_nextStartsTheDelayAfterThePreviousFinished() {
        String name = "sched-" + SERIAL.incrementAndGet();
        DelayQueue<Msg> a = DelayQueue.builder(redis, name, Msg.class).build();
        DelayQueue<Msg> b = DelayQueue.builder(other, name, Msg.class).build();
        Duration delay = Duration.ofSeconds(1);
        a.schedules().upsert("fd", ScheduleSpec.fixedDelay(delay), new Msg("fd", 1));
        List<String> starts = new java.util.concurrent.CopyOnWriteArrayList<>(); // id@serverStartMs
        List<Instant[]> runs = new java.util.concurrent.CopyOnWriteArrayList<>(); // {start, finish}, server clock
        AtomicInteger running = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        JobHandler<Msg> handler = job -> {
            if (running.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            Instant start = ServerTime.now(redis);
            starts.add(job.id());
            Thread.sleep(1500); // a slow job: a fixed rate of 1 s would fire again meanwhile
            Instant finish = ServerTime.now(redis);
            running.decrementAndGet();
            runs.add(new Instant[] {start, finish});
        };
        try (DelayQueueWorker<Msg> wa = DelayQueueWorker.builder(a, handler)
                        .concurrency(2)
                        .build()
                        .start();
                DelayQueueWorker<Msg> wb = DelayQueueWorker.builder(b, handler)
                        .concurrency(2)
                        .build()
                        .start()) {
            assertThat(wa.isRunning() && wb.isRunning()).isTrue();
            await().atMost(Duration.ofSeconds(60)).until(() -> runs.size() >= 4);
            assertThat(b.schedules().remove("fd")).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> a.size(JobState.DUE) + a.size(JobState.IN_FLIGHT) == 0);
        }
        assertThat(overlaps.get()).as("never two runs at once").isZero();
        assertThat(new java.util.HashSet<>(starts)).as("each fire handled once").hasSameSizeAs(starts);
        assertThat(a.stats().enqueued()).as("one job per fire").isEqualTo(starts.size());
        List<Long> gaps = new java.util.ArrayList<>();
        for (int i = 1; i < runs.size(); i++) {
            long gap = Duration.between(runs.get(i - 1)[1], runs.get(i)[0]).toMillis();
            gaps.add(gap);
            assertThat(gap).as("start %d after finish %d, ms", i, i - 1).isGreaterThanOrEqualTo(delay.toMillis());
            assertThat(gap)
                    .as("seen within the check period (+ slack for a loaded box)")
                    .isLessThan(delay.plus(Schedules.FIXED_DELAY_CHECK).toMillis() + 3000);
        }
        System.out.printf(
                "%s: fixed delay 1 s, previous finish to next start, ms: %s%n",
                getClass().getSimpleName(), gaps);
    }
}
