package io.github.deferlock.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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
}
