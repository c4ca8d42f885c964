package io.github.deferlock.dashboard;

import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.NewJob;
import io.github.deferlock.delay.ScheduleSpec;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.redis.internal.Registry;
import io.github.deferlock.redis.internal.RegistryBeacon;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import redis.clients.jedis.UnifiedJedis;

/**
 * The known state the dashboard tests read: queue {@code orders} with 3 jobs due, 3 scheduled an hour ahead,
 * 2 in flight and 4 dead letters ({@code dead-1} … {@code dead-4}, whose errors and payloads hold HTML), queue
 * {@code emails} with one job due, and lock {@code order-42} held under {@code lock:}. Both queues and the
 * lock prefix are in the registry.
 */
final class Workload implements AutoCloseable {

    static final String ORDERS = "orders";
    static final String EMAILS = "emails";
    static final String TENANTS = "tenants";
    static final String LOCK = "order-42";
    static final String XSS_PAYLOAD = "<script>window.__xss = 1</script><img src=x onerror=\"window.__xss = 2\">";
    static final List<String> DEAD_IDS = List.of("dead-1", "dead-2", "dead-3", "dead-4");

    final DelayQueue<String> orders;
    final DelayQueue<String> emails;
    final RedisLocks locks;
    final LockLease lease;
    final String scheduledId;

    private Workload(UnifiedJedis redis) {
        orders = DelayQueue.builder(redis, ORDERS, String.class)
                .visibilityTimeout(Duration.ofMinutes(10))
                .build();
        emails = DelayQueue.builder(redis, EMAILS, String.class).build();
        for (String id : DEAD_IDS) {
            String payload = id.equals("dead-1") ? XSS_PAYLOAD : "order " + id;
            orders.enqueue(id, payload, Duration.ZERO);
        }
        List<Job<String>> dying = orders.claim(DEAD_IDS.size());
        for (Job<String> job : dying) {
            orders.deadLetter(
                    job, "payment service said <b>no</b> to " + job.id() + " <script>window.__xss = 3</script>");
        }
        for (int i = 0; i < 5; i++) {
            orders.enqueue("order " + i);
        }
        String later = null;
        for (int i = 0; i < 3; i++) {
            later = orders.enqueue("later " + i, Duration.ofHours(1)).id();
        }
        scheduledId = later;
        orders.claim(2);
        emails.enqueue("hello");
        new RegistryBeacon(Registry.Kind.QUEUE).touch(redis, ORDERS);
        new RegistryBeacon(Registry.Kind.QUEUE).touch(redis, EMAILS);
        locks = RedisLocks.builder(redis).build();
        lease = locks.get(LOCK).acquire(Duration.ofSeconds(5), Duration.ofMinutes(5));
        new RegistryBeacon(Registry.Kind.LOCK_PREFIX).touch(redis, "lock:");
    }

    /**
     * Queue {@code tenants} (registered) with concurrency keys at their limit: limit 1 for every key, 2 for {@code
     * tenant-b}; jobs a1–a4 of {@code tenant-a} and b1–b3 of {@code tenant-b} were claimed in one call, which
     * took a1, b1 and b2 and held the rest: {@code tenant-a} has 3 held and 1 running of 1, {@code tenant-b} 1
     * held and 2 running of 2. The claims run for 10 minutes.
     *
     * @return the queue and the claimed jobs
     */
    static KeyedQueue heldKeys(UnifiedJedis redis) {
        DelayQueue<String> tenants = DelayQueue.builder(redis, TENANTS, String.class)
                .visibilityTimeout(Duration.ofMinutes(10))
                .build();
        tenants.concurrencyKeys().limit(1);
        tenants.concurrencyKeys().limit("tenant-b", 2);
        for (int i = 1; i <= 4; i++) {
            tenants.enqueueJob(NewJob.of("a" + i, "job a" + i, Duration.ZERO).withConcurrencyKey("tenant-a"));
        }
        for (int i = 1; i <= 3; i++) {
            tenants.enqueueJob(NewJob.of("b" + i, "job b" + i, Duration.ZERO).withConcurrencyKey("tenant-b"));
        }
        List<Job<String>> claimed = tenants.claim(10);
        new RegistryBeacon(Registry.Kind.QUEUE).touch(redis, TENANTS);
        return new KeyedQueue(tenants, claimed);
    }

    /** {@link #heldKeys}'s queue and the jobs its claim took. */
    record KeyedQueue(DelayQueue<String> queue, List<Job<String>> claimed) {}

    static final String REPORTS = "reports";

    /**
     * Queue {@code reports} with two recurring schedules: {@code ping}, fixed rate every 5 minutes, and {@code
     * cleanup}, a fixed delay of 2 s whose first job runs in a worker that holds it until {@link
     * WaitingSchedule#close()}: the schedule waits for that job ({@code waitingFor}) and has no next fire.
     * Returns once Redis shows it waiting.
     */
    static WaitingSchedule waitingSchedule(UnifiedJedis redis) {
        DelayQueue<String> reports = DelayQueue.builder(redis, REPORTS, String.class)
                .visibilityTimeout(Duration.ofMinutes(10))
                .build();
        reports.schedules().upsert("ping", ScheduleSpec.fixedRate(Duration.ofMinutes(5)), "ping");
        reports.schedules().upsert("cleanup", ScheduleSpec.fixedDelay(Duration.ofSeconds(2)), "cleanup");
        CountDownLatch release = new CountDownLatch(1);
        DelayQueueWorker<String> worker = DelayQueueWorker.builder(reports, job -> release.await())
                .build()
                .start();
        String job = await().atMost(Duration.ofSeconds(30))
                .until(() -> reports.schedules().get("cleanup").orElseThrow().waitingFor(), Optional::isPresent)
                .orElseThrow();
        return new WaitingSchedule(reports, job, () -> {
            release.countDown();
            worker.close();
        });
    }

    /** {@link #waitingSchedule}'s queue and the job its fixed-delay schedule waits for. */
    record WaitingSchedule(DelayQueue<String> queue, String job, Runnable closer) implements AutoCloseable {
        @Override
        public void close() {
            closer.run();
        }
    }

    /** Writes the workload into {@code redis} (expected empty). */
    static Workload write(UnifiedJedis redis) {
        return new Workload(redis);
    }

    @Override
    public void close() {
        try {
            lease.close();
        } catch (RuntimeException e) {
            // the test may have flushed Redis
        }
        locks.close();
    }
}
