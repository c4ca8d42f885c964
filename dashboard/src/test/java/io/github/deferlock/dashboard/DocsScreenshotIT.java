package io.github.deferlock.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.redis.internal.Registry;
import io.github.deferlock.redis.internal.RegistryBeacon;
import io.github.deferlock.testing.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import redis.clients.jedis.RedisClient;

/**
 * Makes {@code docs/dashboard-queues.png}, the README's picture of the queue page: a minute of a live workload
 * (a producer, workers that fail one delivery in 25, one held lock). Runs only with {@code
 * -Ddeferlock.docs.screenshot=true}: {@code ./mvnw -pl dashboard -am verify -Dtest=DocsScreenshotIT
 * -Dsurefire.failIfNoSpecifiedTests=false -Ddeferlock.docs.screenshot=true}.
 */
final class DocsScreenshotIT {

    @Test
    @SuppressWarnings("try") // the worker runs while the picture is taken
    void queuePage_underALiveWorkload() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("deferlock.docs.screenshot"), "makes the docs picture on demand");
        ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();
        try (RedisServer server = RedisServer.start();
                RedisClient redis = server.newClient();
                Browser browser = Browser.startOrSkip()) {
            DelayQueue<String> orders = DelayQueue.builder(redis, "orders", String.class)
                    .maxAttempts(2)
                    .backoff(Backoff.fixed(Duration.ofSeconds(1)))
                    .build();
            DelayQueue<String> emails =
                    DelayQueue.builder(redis, "emails", String.class).build();
            producer.scheduleAtFixedRate(
                    () -> {
                        int n = ThreadLocalRandom.current().nextInt(3, 9);
                        for (int i = 0; i < n; i++) {
                            orders.enqueue(
                                    "{\"order\": " + ThreadLocalRandom.current().nextInt(100_000) + "}");
                        }
                        emails.enqueue(
                                "welcome",
                                Duration.ofSeconds(ThreadLocalRandom.current().nextInt(0, 120)));
                    },
                    0,
                    250,
                    TimeUnit.MILLISECONDS);
            try (DelayQueueWorker<String> worker = DelayQueueWorker.builder(orders, job -> {
                                Thread.sleep(ThreadLocalRandom.current().nextInt(5, 60));
                                if (ThreadLocalRandom.current().nextInt(25) == 0) {
                                    throw new IllegalStateException("payment service timed out for " + job.payload());
                                }
                            })
                            .concurrency(4)
                            .build()
                            .start();
                    RedisLocks locks = RedisLocks.builder(redis).build();
                    LockLease lease = locks.get("order-42").acquire(Duration.ofSeconds(5), Duration.ofMinutes(5));
                    RunningDashboard d = RunningDashboard.withActions(redis)) {
                new RegistryBeacon(Registry.Kind.QUEUE).touch(redis, "orders");
                new RegistryBeacon(Registry.Kind.QUEUE).touch(redis, "emails");
                browser.driver.get(d.server.uri().toString());
                browser.driver.findElement(By.id("signin-secret")).sendKeys(RunningDashboard.TOKEN);
                browser.driver.findElement(By.id("signin-button")).click();
                await().atMost(Duration.ofSeconds(20)).until(() -> !browser.driver
                        .findElements(By.cssSelector("#queues tr[data-queue='orders'] a"))
                        .isEmpty());
                browser.driver
                        .findElement(By.cssSelector("#queues tr[data-queue='orders'] a"))
                        .click();
                Thread.sleep(60_000); // a minute of charts: the picture is the point, nothing waits on a condition
                browser.driver.findElement(By.cssSelector("#locks-form button")).click();
                Thread.sleep(1_000);
                browser.driver.manage().window().setSize(new Dimension(1400, 1050));
                browser.driver.executeScript("window.scrollTo(0, 0)");
                Thread.sleep(3_000);
                Path shot = browser.screenshot("docs-queue-page");
                Path docs = Paths.get("..", "docs", "dashboard-queues.png");
                Files.copy(shot, docs, StandardCopyOption.REPLACE_EXISTING);
                assertThat(lease.fencingToken()).isPositive();
            }
        } finally {
            producer.shutdownNow();
        }
    }

    /**
     * Makes {@code docs/dashboard-conflicts.png}, the README's picture of the Conflicts panel: half a minute of
     * two services contending for a few order locks with THROW, SLEEP_RETRY and DEFER. Same switch as above:
     * {@code -Dtest=DocsScreenshotIT#conflictsPanel_underContention -Ddeferlock.docs.screenshot=true}.
     */
    @Test
    void conflictsPanel_underContention() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("deferlock.docs.screenshot"), "makes the docs picture on demand");
        ExecutorService threads = Executors.newFixedThreadPool(6);
        AtomicBoolean running = new AtomicBoolean(true);
        try (RedisServer server = RedisServer.start();
                RedisClient redis = server.newClient();
                RedisClient otherClient = server.newClient();
                Browser browser = Browser.startOrSkip();
                RedisLocks billing = RedisLocks.builder(redis).build();
                RedisLocks shipping = RedisLocks.builder(otherClient).build();
                Deferrals deferrals = Deferrals.builder(redis, "order-events").build();
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            List<String> orders =
                    List.of("order:1042", "order:1042", "order:1042", "order:2077", "order:2077", "order:311");
            LockRunner runner = LockRunner.builder(billing).build();
            ConflictAwareHandler<String> events = ConflictAwareHandler.builder("order-events", String.class, billing)
                    .key(e -> e.substring(0, e.indexOf('#')))
                    .messageId(e -> e)
                    .handler(e -> Thread.sleep(20))
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            deferrals.startWorker(1);
            threads.submit(
                    () -> { // the shipping service holds the orders it works on
                        while (running.get()) {
                            String order =
                                    orders.get(ThreadLocalRandom.current().nextInt(orders.size()));
                            shipping.get(order).withLock(Duration.ofSeconds(1), () -> {
                                try {
                                    Thread.sleep(ThreadLocalRandom.current().nextInt(50, 400));
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            });
                        }
                        return null;
                    });
            for (int t = 0; t < 4; t++) {
                int which = t;
                threads.submit(() -> {
                    long n = 0;
                    while (running.get()) {
                        String order = orders.get(ThreadLocalRandom.current().nextInt(orders.size()));
                        try {
                            switch (which) {
                                case 0 -> runner.withLock(order, OnConflict.THROW, DocsScreenshotIT::work);
                                case 1 -> runner.withLock(order, OnConflict.SLEEP_RETRY, DocsScreenshotIT::work);
                                default -> events.handle(order + "#" + which + "-" + n++);
                            }
                        } catch (RuntimeException conflict) {
                            // THROW and SLEEP_RETRY give up: that is what the panel counts
                        }
                        Thread.sleep(ThreadLocalRandom.current().nextInt(20, 120));
                    }
                    return null;
                });
            }
            browser.driver.manage().window().setSize(new Dimension(1400, 900));
            browser.driver.get(d.server.uri().toString());
            Thread.sleep(30_000); // half a minute of contention: the picture is the point, nothing waits on a condition
            browser.driver.executeScript("document.getElementById('conflicts-form').scrollIntoView()");
            Thread.sleep(3_000);
            assertThat(browser.driver.findElements(By.cssSelector("#conflicts tbody tr")))
                    .isNotEmpty();
            Path shot = browser.screenshot("docs-conflicts");
            Files.copy(shot, Paths.get("..", "docs", "dashboard-conflicts.png"), StandardCopyOption.REPLACE_EXISTING);
            running.set(false);
        } finally {
            running.set(false);
            threads.shutdownNow();
        }
    }

    private static Void work() throws InterruptedException {
        Thread.sleep(5);
        return null;
    }
}
