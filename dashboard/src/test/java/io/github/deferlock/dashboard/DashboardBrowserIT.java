package io.github.deferlock.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.DeferMode;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.conflict.SleepRetry;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DeadLetter;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.delay.NewJob;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.PermitLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The dashboard page in headless Chromium against a real redis-server holding a known {@link Workload}: what the
 * page shows equals what Redis holds, clicks change Redis, and HTML in payloads and errors stays text.
 * Screenshots go to {@code target/screenshots}.
 */
@ExtendWith(RedisExtension.class)
final class DashboardBrowserIT {

    private static Browser browser;

    @BeforeAll
    static void startBrowser() throws IOException {
        browser = Browser.startOrSkip();
    }

    @AfterAll
    static void stopBrowser() throws IOException {
        if (browser != null) {
            browser.close();
        }
    }

    private static ConditionFactory eventually() {
        return await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                // an element redrawn under the test (stale) or not drawn yet: look again
                .ignoreExceptionsMatching(
                        e -> e instanceof StaleElementReferenceException || e instanceof NoSuchElementException);
    }

    private static WebElement find(String css) {
        return browser.driver.findElement(By.cssSelector(css));
    }

    /** Clicks the element, looking it up again when a refresh redrew it before the click. */
    private static void click(String css) {
        eventually().until(() -> {
            find(css).click();
            return true;
        });
    }

    private static List<WebElement> all(String css) {
        return browser.driver.findElements(By.cssSelector(css));
    }

    /** The first match's text, or null when none; looked up again when a refresh redrew it before the read. */
    private static String text(String css) {
        AtomicReference<String> read = new AtomicReference<>();
        eventually().until(() -> {
            List<WebElement> found = all(css);
            read.set(found.isEmpty() ? null : found.get(0).getText());
            return true;
        });
        return read.get();
    }

    /** Whether the element is displayed; looked up again when a refresh redrew it between lookup and read. */
    private static boolean displayed(String css) {
        AtomicBoolean shown = new AtomicBoolean();
        eventually().until(() -> {
            shown.set(find(css).isDisplayed());
            return true;
        });
        return shown.get();
    }

    /** Opens the page and selects queue orders (the first queue, emails, is selected at first). */
    private static void open(RunningDashboard d) {
        browser.driver.get(d.server.uri().toString());
        // the queue rows are redrawn when a figure changes (the oldest due age does): click within a retry
        click("#queues tr[data-queue='orders'] a");
        eventually()
                .until(() -> "orders".equals(text("#dead-queue"))
                        && all("#dead tbody tr").size() == 4);
    }

    private static void signIn() {
        find("#signin-secret").sendKeys(RunningDashboard.TOKEN);
        click("#signin-button");
        eventually().until(() -> "token".equals(text("#signed-in-user")));
    }

    private static Map<String, String> deadErrorsOnPage() {
        return all("#dead tbody tr").stream()
                .collect(Collectors.toMap(
                        r -> r.getAttribute("data-id"),
                        r -> r.findElement(By.cssSelector(".error-text")).getText()));
    }

    @Test
    void schedules_showNextFire_andAWaitingFixedDelayAsAfterItsJob(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                Workload.WaitingSchedule waiting = Workload.waitingSchedule(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            browser.driver.get(d.server.uri().toString());
            click("#queues tr[data-queue='reports'] a");
            eventually()
                    .until(() -> "reports".equals(text("#schedules-queue"))
                            && all("#schedules tbody tr").size() == 2);
            String cleanup = "#schedules tr[data-id='cleanup'] ";
            assertThat(text(cleanup + ".spec")).isEqualTo("delay:PT2S");
            assertThat(text(cleanup + ".next-fire")).isEqualTo("after " + waiting.job() + " + 2.0 s");
            assertThat(find(cleanup + ".next-fire").getAttribute("title")).contains(waiting.job());
            String ping = "#schedules tr[data-id='ping'] ";
            assertThat(text(ping + ".spec")).isEqualTo("rate:PT5M");
            assertThat(text(ping + ".missed")).isEqualTo("once");
            Instant pingNext = waiting.queue()
                    .schedules()
                    .get("ping")
                    .orElseThrow()
                    .nextFire()
                    .orElseThrow();
            assertThat(text(ping + ".next-fire"))
                    .as("toISOString() of the next slot")
                    .isEqualTo(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
                            .withZone(ZoneOffset.UTC)
                            .format(pingNext));
            browser.screenshot("schedules");
            // a queue without schedules says so
            assertThat(w.orders.schedules().list()).isEmpty();
            click("#queues tr[data-queue='orders'] a");
            eventually()
                    .until(() -> "orders".equals(text("#schedules-queue"))
                            && displayed("#schedules-empty")
                            && all("#schedules tbody tr").isEmpty());
        }
    }

    @Test
    void queuePage_showsWhatRedisHolds(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            open(d);
            String row = "#queues tr[data-queue='orders'] ";

            eventually().untilAsserted(() -> {
                long waiting = w.orders.size(JobState.DUE);
                assertThat(Long.parseLong(text(row + ".due")) + Long.parseLong(text(row + ".scheduled")))
                        .isEqualTo(waiting);
                assertThat(text(row + ".scheduled")).isEqualTo("3");
                assertThat(text(row + ".in-flight")).isEqualTo(String.valueOf(w.orders.size(JobState.IN_FLIGHT)));
                assertThat(text(row + ".dead")).isEqualTo(String.valueOf(w.orders.size(JobState.DEAD)));
                assertThat(text("#queues tr[data-queue='emails'] .due"))
                        .isEqualTo(String.valueOf(w.emails.size(JobState.DUE)));
                assertThat(text("#dead-total")).isEqualTo("4");
            });
            Map<String, String> expected = w.orders.deadLetters().list(10).stream()
                    .collect(Collectors.toMap(DeadLetter::id, DeadLetter::reason));
            eventually().untilAsserted(() -> assertThat(deadErrorsOnPage()).isEqualTo(expected));
            // the charts are uPlot canvases, drawn from the sampled history
            eventually()
                    .until(() -> all("#chart-enqueued canvas").size() == 1
                            && all("#chart-handled canvas").size() == 1
                            && all("#chart-lateness canvas").size() == 1
                            && d.getJson("api/history?queue=orders")
                                            .get("samples")
                                            .size()
                                    >= 3);
            w.orders.enqueue("more");
            eventually().untilAsserted(() -> assertThat(text(row + ".due"))
                    .isEqualTo(String.valueOf(w.orders.size(JobState.DUE) - 3)));
            browser.screenshot("queue-page");
        }
    }

    /**
     * A queue with concurrency keys at their limit: the Held cell shows how many jobs wait and, per key, the held
     * jobs, the running ones and the limit, as Redis holds them; after an ack lets a held job back, the page
     * follows.
     */
    @Test
    void queueTable_showsTheConcurrencyKeysHeldAtTheirLimit(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            Workload.KeyedQueue keyed = Workload.heldKeys(redis);
            DelayQueue<String> tenants = keyed.queue();
            assertThat(tenants.concurrencyKeys().heldByKey(10)).isEqualTo(Map.of("tenant-a", 3L, "tenant-b", 1L));
            browser.driver.get(d.server.uri().toString());
            String row = "#queues tr[data-queue='tenants'] ";
            String a = row + ".held-keys li[data-key='tenant-a'] ";
            String b = row + ".held-keys li[data-key='tenant-b'] ";

            eventually().untilAsserted(() -> {
                assertThat(text(row + ".held")).isEqualTo("4");
                assertThat(all(row + ".held-keys li"))
                        .extracting(e -> e.getAttribute("data-key"))
                        .containsExactly("tenant-a", "tenant-b"); // most held first
                assertThat(text(a + ".held-key")).isEqualTo("tenant-a");
                assertThat(text(a + ".held-count")).isEqualTo("3");
                assertThat(text(a + ".held-running")).isEqualTo("1");
                assertThat(text(a + ".held-limit")).isEqualTo("1");
                assertThat(text(b + ".held-count")).isEqualTo("1");
                assertThat(text(b + ".held-running")).isEqualTo("2");
                assertThat(text(b + ".held-limit")).isEqualTo("2");
                assertThat(text(row + ".due"))
                        .isEqualTo(String.valueOf(tenants.stats().due()));
            });
            assertThat(text("#queues tr[data-queue='orders'] .held"))
                    .isEqualTo(String.valueOf(w.orders.stats().held()))
                    .isEqualTo("0");
            assertThat(all("#queues tr[data-queue='orders'] .held-keys")).isEmpty();
            browser.screenshot("held-keys");

            assertThat(tenants.ack(keyed.claimed().get(0))).isTrue(); // a1 ends: a2 goes back to due
            eventually().untilAsserted(() -> {
                assertThat(text(row + ".held")).isEqualTo("3");
                assertThat(text(a + ".held-count")).isEqualTo("2");
                assertThat(text(a + ".held-running")).isEqualTo("0");
            });
        }
    }

    @Test
    void htmlInPayloadsAndErrors_rendersAsText(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            open(d);
            String stored = w.orders.deadLetters().list(1).get(0).payloadJson();

            eventually().untilAsserted(() -> assertThat(text("#dead tr[data-id='dead-1'] .payload"))
                    .isEqualTo(stored));
            click("#dead tr[data-id='dead-1'] a.job-id");
            eventually()
                    .untilAsserted(() -> assertThat(text("#job .job-payload")).isEqualTo(stored));
            assertThat(text("#job .job-error")).contains("<script>window.__xss = 3</script>");

            assertThat(browser.driver.executeScript("return window.__xss === undefined"))
                    .isEqualTo(true);
            assertThat(all("#dead script, #dead img, #dead b, #job script, #job img"))
                    .isEmpty();
            assertThat(all("script")).hasSize(2); // uPlot and the page's own
            browser.screenshot("escaped-payload");
        }
    }

    @Test
    void readOnlyPage_showsNoActions(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            open(d);

            assertThat(text("#mode")).isEqualTo("read-only");
            assertThat(displayed("#requeue-selected")).isFalse();
            assertThat(displayed("#dead tr[data-id='dead-1'] input.pick")).isFalse();
            assertThat(displayed("#signin")).isFalse();
            assertThat(displayed("#queues tr[data-queue='orders'] .pause-toggle"))
                    .isFalse();
            assertThat(w.orders.size(JobState.DEAD)).isEqualTo(4);
        }
    }

    @Test
    void requeueSelected_movesExactlyTheSelectedIds(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            open(d);
            assertThat(displayed("#requeue-selected")).isFalse();
            signIn();

            eventually().until(() -> displayed("#dead tr[data-id='dead-1'] input.pick"));
            click("#dead tr[data-id='dead-1'] input.pick");
            click("#dead tr[data-id='dead-3'] input.pick");
            eventually().untilAsserted(() -> assertThat(text("#selected-count")).isEqualTo("2 selected"));
            browser.screenshot("dead-letters-selected");
            click("#requeue-selected");

            eventually().untilAsserted(() -> {
                assertThat(w.orders.get("dead-1").orElseThrow().state()).isEqualTo(JobState.DUE);
                assertThat(w.orders.get("dead-3").orElseThrow().state()).isEqualTo(JobState.DUE);
            });
            assertThat(w.orders.get("dead-2").orElseThrow().state()).isEqualTo(JobState.DEAD);
            assertThat(w.orders.get("dead-4").orElseThrow().state()).isEqualTo(JobState.DEAD);
            eventually().untilAsserted(() -> {
                assertThat(text("#dead-total")).isEqualTo("2");
                assertThat(deadErrorsOnPage()).containsOnlyKeys("dead-2", "dead-4");
            });
            assertThat(d.audit).singleElement().satisfies(r -> {
                assertThat(r.actor()).isEqualTo("token");
                assertThat(r.ids()).containsExactlyInAnyOrder("dead-1", "dead-3");
            });
            browser.screenshot("dead-letters-requeued");
        }
    }

    @Test
    void pauseAndResume_fromTheQueueRow_changeRedis_showTheState_andAreAudited(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            open(d);
            String row = "#queues tr[data-queue='orders'] ";
            eventually()
                    .untilAsserted(() -> assertThat(text(row + ".queue-state")).isEqualTo("running"));
            signIn();
            eventually().until(() -> displayed(row + ".pause-toggle"));
            assertThat(text(row + ".pause-toggle")).isEqualTo("Pause");
            click(row + ".pause-toggle");

            eventually().until(w.orders::isPaused);
            eventually().untilAsserted(() -> {
                assertThat(text(row + ".queue-state")).isEqualTo("paused");
                assertThat(text(row + ".pause-toggle")).isEqualTo("Resume");
            });
            assertThat(text("#queues tr[data-queue='emails'] .queue-state")).isEqualTo("running");
            assertThat(w.emails.isPaused()).isFalse();
            browser.screenshot("queue-paused");
            click(row + ".pause-toggle");

            eventually().until(() -> !w.orders.isPaused());
            eventually()
                    .untilAsserted(() -> assertThat(text(row + ".queue-state")).isEqualTo("running"));
            assertThat(d.audit)
                    .extracting(r -> r.action() + " " + r.queue() + " " + r.actor() + " " + r.outcome())
                    .containsExactly("pause orders token paused", "resume orders token resumed");
        }
    }

    @Test
    void requeueAll_needsTheCountTyped(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            open(d);
            signIn();

            click("#requeue-all");
            eventually().until(() -> displayed("#confirm"));
            assertThat(text("#confirm-text")).contains("4 dead letters").contains("orders");
            find("#confirm-input").sendKeys("3");
            assertThat(find("#confirm-ok").isEnabled()).isFalse();
            find("#confirm-input").clear();
            find("#confirm-input").sendKeys("4");
            assertThat(find("#confirm-ok").isEnabled()).isTrue();
            browser.screenshot("requeue-all-confirm");
            click("#confirm-ok");

            eventually().untilAsserted(() -> assertThat(w.orders.size(JobState.DEAD))
                    .isZero());
            assertThat(w.orders.get("dead-2").orElseThrow().state()).isEqualTo(JobState.DUE);
            eventually().untilAsserted(() -> assertThat(text("#dead-total")).isEqualTo("0"));
        }
    }

    @Test
    void jobView_showsTheJob_andCancelDeletesIt(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            open(d);
            signIn();

            find("#job-queue").sendKeys("orders");
            find("#job-id").sendKeys(w.scheduledId);
            click("#job-form button");
            eventually().untilAsserted(() -> {
                assertThat(text("#job .job-state")).isEqualTo("DUE");
                assertThat(text("#job .job-attempts")).isEqualTo("0");
                assertThat(text("#job .job-payload")).isEqualTo("\"later 2\"");
            });
            browser.screenshot("job");
            click("#job-cancel");

            eventually()
                    .untilAsserted(() -> assertThat(w.orders.get(w.scheduledId)).isEmpty());
            eventually().until(() -> displayed("#job-missing"));
        }
    }

    /** A running job's priority and the progress its handler reported; the note is text, never markup. */
    @Test
    void jobView_showsPriorityAndProgress(UnifiedJedis redis) {
        DelayQueue<String> reports =
                DelayQueue.builder(redis, "reports", String.class).build();
        reports.enqueueJob(NewJob.of("r1", "report", Duration.ZERO).withPriority(4));
        Job<String> running = reports.claim(1).get(0);
        running.progress(55, "<b>step</b> 2 of 4");
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            open(d);
            find("#job-queue").sendKeys("reports");
            find("#job-id").sendKeys("r1");
            click("#job-form button");
            eventually().untilAsserted(() -> {
                assertThat(text("#job .job-state")).isEqualTo("IN_FLIGHT");
                assertThat(text("#job .job-priority")).isEqualTo("4");
                assertThat(text("#job .job-progress")).startsWith("55% <b>step</b> 2 of 4 (attempt 1, ");
            });
            assertThat(all("#job b")).isEmpty();
            assertThat(w.orders.size(JobState.DUE)).isPositive();
            browser.screenshot("job-progress");
        }
    }

    /** The holder, and (issue 27) two messages parked behind the held lock by an ordered DEFER. */
    @Test
    void locks_showTheHolderAndTheParkedWork(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b);
                RedisLocks parker = RedisLocks.builder(redis).build();
                Deferrals deferrals = Deferrals.builder(redis, "parked-panel")
                        .mode(DeferMode.ORDERED)
                        .build()) {
            ConflictAwareHandler<String> handler = ConflictAwareHandler.builder("panel", String.class, parker)
                    .key(m -> Workload.LOCK)
                    .messageId(m -> m)
                    .handler(m -> {})
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            assertThat(handler.handle("m1")).isEqualTo(Outcome.DEFERRED);
            assertThat(handler.handle("m2")).isEqualTo(Outcome.DEFERRED);
            open(d);
            click("#locks-form button");

            String stored = redis.get(w.locks.get(Workload.LOCK).key());
            // the row is redrawn every refresh (the remaining lease changes): read it within one retry
            eventually().untilAsserted(() -> {
                assertThat(text("#locks .lock-name")).isEqualTo(Workload.LOCK);
                assertThat(stored).startsWith(text("#locks .lock-holder"));
                assertThat(text("#locks .lock-waiting")).isEqualTo("no");
                assertThat(Long.parseLong(text("#locks .lock-fencing"))).isGreaterThanOrEqualTo(w.lease.fencingToken());
                assertThat(text("#locks .lock-parked")).isEqualTo("2");
                assertThat(text("#locks .lock-parked-age")).matches("\\d+(\\.\\d)? (ms|s|min)");
            });
            browser.screenshot("locks");
        }
    }

    /** A permits name (issue 32) is listed with how many of its permits are held, not a holder token. */
    @Test
    @SuppressWarnings("try") // the leases are held while the page is read
    void locks_showHowManyPermitsOfANameAreHeld(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RedisLocks locks = RedisLocks.builder(redis).build();
                PermitLease first = locks.permits("tenant:7", 3).acquire(Duration.ZERO, Duration.ofSeconds(60));
                PermitLease second = locks.permits("tenant:7", 3).acquire(Duration.ZERO, Duration.ofSeconds(60));
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            open(d);
            click("#locks-form button");
            eventually().untilAsserted(() -> {
                Optional<WebElement> found = all("#locks tbody tr").stream()
                        .filter(r -> r.findElement(By.cssSelector(".lock-name"))
                                .getText()
                                .equals("tenant:7"))
                        .findFirst();
                assertThat(found).as("the row of tenant:7").isPresent();
                WebElement row = found.get();
                assertThat(row.findElement(By.cssSelector(".lock-holder")).getText())
                        .isEqualTo("2 of 3 permits");
                assertThat(row.findElement(By.cssSelector(".lock-lease")).getText())
                        .matches("\\d+(\\.\\d)? (ms|s|min)");
            });
        }
    }

    @Test
    @SuppressWarnings("try") // the lease is held while the page is read
    void conflicts_showTheConflictsCausedPerStrategy(RedisServer server, UnifiedJedis redis) throws Exception {
        try (RedisClient otherClient = server.newClient();
                RedisLocks mine = RedisLocks.builder(redis).build();
                RedisLocks other = RedisLocks.builder(otherClient).build();
                LockLease held = other.get("order:9").acquire(Duration.ZERO, Duration.ofSeconds(60));
                Deferrals deferrals = Deferrals.builder(redis, "deferred")
                        .mode(DeferMode.ORDERED)
                        .build(); // no worker: items stay parked
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            LockRunner runner = LockRunner.builder(mine)
                    .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(5)), 3, Duration.ofSeconds(5)))
                    .build();
            for (int i = 0; i < 4; i++) {
                assertThatThrownBy(() -> runner.withLock("order:9", OnConflict.THROW, () -> {}))
                        .isInstanceOf(LockConflictException.class);
            }
            assertThatThrownBy(() -> runner.withLock("order:9", OnConflict.SLEEP_RETRY, () -> {}))
                    .isInstanceOf(LockConflictException.class);
            ConflictAwareHandler<String> handler = ConflictAwareHandler.builder("orders", String.class, mine)
                    .key(m -> "order:9")
                    .messageId(m -> m)
                    .handler(m -> {})
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            assertThat(handler.handle("m1")).isEqualTo(Outcome.DEFERRED);
            assertThat(handler.handle("m2")).isEqualTo(Outcome.DEFERRED);
            String stored = redis.get(other.get("order:9").key());

            browser.driver.get(d.server.uri().toString());
            eventually().untilAsserted(() -> {
                assertThat(text("#conflicts .conflict-name")).isEqualTo("order:9");
                assertThat(find("#conflicts .conflict-throw").getAttribute("data-count"))
                        .isEqualTo("4");
                assertThat(find("#conflicts .conflict-sleep-retry").getAttribute("data-count"))
                        .isEqualTo("3");
                assertThat(find("#conflicts .conflict-defer").getAttribute("data-count"))
                        .isEqualTo("2");
                assertThat(text("#conflicts .conflict-total")).isEqualTo("9");
                assertThat(Double.parseDouble(text("#conflicts .conflict-throw")))
                        .isPositive();
                assertThat(text("#conflicts .conflict-parked")).isEqualTo("2");
                assertThat(text("#conflicts .conflict-oldest")).isNotEmpty();
                assertThat(text("#conflicts .conflict-waiters")).isEqualTo("0");
                assertThat(stored).startsWith(text("#conflicts .conflict-holder"));
                assertThat(text("#conflicts .conflict-lease")).isNotEmpty();
            });
            browser.screenshot("conflicts");
            find("#conflicts-prefix").clear();
            find("#conflicts-prefix").sendKeys("other:");
            click("#conflicts-form button");
            eventually()
                    .until(() -> all("#conflicts tbody tr").isEmpty()
                            && text("#conflicts-status").startsWith("No conflict counted"));
        }
    }

    @Test
    void deadLetters_arePaged(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            for (int i = 0; i < 21; i++) {
                w.orders.enqueue("many-" + i, "many " + i, Duration.ZERO);
            }
            w.orders.claim(100).forEach(job -> w.orders.deadLetter(job, "failed " + job.id()));
            long dead = w.orders.size(JobState.DEAD);
            List<String> oldest = w.orders.deadLetters().list((int) dead).stream()
                    .map(DeadLetter::id)
                    .toList();
            browser.driver.get(d.server.uri().toString());
            click("#queues tr[data-queue='orders'] a");

            eventually().untilAsserted(() -> {
                assertThat(text("#dead-page")).isEqualTo("1–20 of " + dead);
                assertThat(all("#dead tbody tr"))
                        .extracting(r -> r.getAttribute("data-id"))
                        .containsExactlyElementsOf(oldest.subList(0, 20));
            });
            click("#dead-next");
            eventually().untilAsserted(() -> {
                assertThat(text("#dead-page")).isEqualTo("21–" + dead + " of " + dead);
                assertThat(all("#dead tbody tr"))
                        .extracting(r -> r.getAttribute("data-id"))
                        .containsExactlyElementsOf(oldest.subList(20, (int) dead));
            });
            assertThat(find("#dead-next").isEnabled()).isFalse();
        }
    }

    @Test
    void purgeSelected_afterTheSessionExpired_takesTheNewSessionsToken(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            open(d);
            signIn();
            browser.driver.manage().deleteAllCookies(); // as when the server's session times out

            click("#dead tr[data-id='dead-2'] input.pick");
            click("#purge-selected");

            eventually().untilAsserted(() -> assertThat(w.orders.get("dead-2")).isEmpty());
            assertThat(w.orders.size(JobState.DEAD)).isEqualTo(3);
            assertThat(d.audit)
                    .extracting(ActionRecord::outcome)
                    .last()
                    .asString()
                    .startsWith("done [dead-2]");
        }
    }
}
