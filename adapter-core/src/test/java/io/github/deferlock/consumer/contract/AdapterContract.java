package io.github.deferlock.consumer.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.DeferMode;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.consumer.ConsumerListener;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract every adapter runs against its real broker (issues 26 and 27): a {@code ConflictAwareHandler} with
 * {@code OnConflict.DEFER} and {@link DeferMode#ORDERED} deferrals, fed through the adapter's consumer. A subclass
 * binds one adapter: it owns the broker, opens a channel (topic, stream, queue), produces, restarts the broker,
 * counts dead letters, and starts consumers through a {@link ConsumerStarter}.
 *
 * <p>The main run: {@value #DEFAULT_MESSAGES} messages (system property {@value #MESSAGES_PROPERTY}) over 500
 * keys, each carrying its key's sequence number, plus one poison message three quarters in. Three hot keys are
 * held by another JVM ({@link HolderMain}) until a fifth is handled. A consumer JVM starts; it is SIGKILLed at a
 * tenth and a consumer in the test JVM takes over; Redis goes away for 1 s at 30 % and 5 s at 45 % (a {@link
 * FaultProxy} between that consumer and Redis refuses connections); the broker restarts at 60 % (unless {@link
 * #canRestartBroker()} says it is not ours to restart). Asserted: none
 * lost; only the poison dead-lettered, after its {@link ContractFixture#MAX_ATTEMPTS} attempts spaced as {@link
 * ContractFixture#RETRY_BACKOFF} says; runs repeated only for handlings cut by the kill (at most one per handler
 * thread of the killed JVM) or by an outage (see {@link #outageRepeatsAllowed(int)}), never without a cause; no
 * order inversion among the first handlings of each key. A second test keeps Redis away for 30 s while messages
 * flow and a key is held, and asserts that nothing is dead-lettered, lost or reordered, and no attempt spent. Both
 * print their figures ({@code adapter contract ...}) for docs/strategies.md.
 */
@ExtendWith(RedisExtension.class)
public abstract class AdapterContract {
    /** The system property that sets the main run's message count. */
    public static final String MESSAGES_PROPERTY = "deferlock.contract.messages";

    /**
     * The system property that, set to {@code false}, skips the 30 s outage test: CI's second pass (JDK 25, Redis
     * 6.2) sets it, since its first pass ran that test and the outage's handling does not depend on the JDK or the
     * Redis version (docs/strategies.md, "The adapter contract").
     */
    public static final String LONG_OUTAGE_PROPERTY = "deferlock.contract.longOutage";

    /** The system property that sets the deferral mode (default ORDERED). */
    public static final String MODE_PROPERTY = "deferlock.contract.mode";

    static final int DEFAULT_MESSAGES = 10_000;
    static final int OUTAGE_MESSAGES = 1_000;
    static final Duration STEP = Duration.ofSeconds(120);

    /** The adapter's name in the figures, e.g. {@code "kafka"}. */
    protected abstract String adapter();

    /** Builds this adapter's consumers, here and in the consumer JVM. */
    protected abstract Class<? extends ConsumerStarter> starter();

    /**
     * The consumers' concurrency: any for Kafka (its lanes keep a key's order); 1 for an adapter that keeps a
     * key's order only on one thread.
     */
    protected abstract int concurrency();

    /**
     * The deferral mode under test: {@link DeferMode#ORDERED}, or what the system property {@value #MODE_PROPERTY}
     * names ({@code TIMED} keeps no key order: the inversion check then fails, which shows it can).
     */
    protected DeferMode deferMode() {
        return DeferMode.valueOf(System.getProperty(MODE_PROPERTY, DeferMode.ORDERED.name()));
    }

    /** Creates channel {@code name} (topic, stream, queue) on the broker; returns the consumers' broker args. */
    protected abstract List<String> openChannel(String name) throws Exception;

    /** Sends {@code messages} in this order; a key's messages must reach the consumer in this order. */
    protected abstract void produce(List<String> brokerArgs, List<ContractMessage> messages) throws Exception;

    /** Restarts the broker (its data kept), with the consumers running. */
    protected abstract void restartBroker() throws Exception;

    /**
     * Whether the main run may call {@link #restartBroker()} (default true). False for a broker the test does not
     * own, such as a shared system service: the run then skips the restart, says so in its figures and asserts
     * everything else.
     */
    protected boolean canRestartBroker() {
        return true;
    }

    /** How many messages the channel's dead-letter target holds. */
    protected abstract long deadLetters(List<String> brokerArgs) throws Exception;

    /** True when the broker has nothing left to deliver or acknowledge of the {@code total} messages sent. */
    protected abstract boolean settled(List<String> brokerArgs, long total) throws Exception;

    @Test
    void manyMessages_hotKeys_kill_outages_poison_brokerRestart_loseNothing_keepEachKeysOrder(RedisServer server)
            throws Exception {
        int n = Integer.getInteger(MESSAGES_PROPERTY, DEFAULT_MESSAGES);
        int keys = Math.max(10, Math.min(500, n / 20));
        List<ContractMessage> messages = messages(n, keys);
        messages.add(3 * n / 4, new ContractMessage("poison", "poison", 0, true));
        long started = System.nanoTime();
        List<String> args = openChannel("contract-" + UUID.randomUUID());
        Counts counts = new Counts();
        List<String> events = new ArrayList<>();
        List<long[]> outages = new ArrayList<>();
        long logAtKill;
        try (FaultProxy proxy = FaultProxy.to(server);
                JvmProcess holder =
                        JvmProcess.start(HolderMain.class, Integer.toString(server.port()), "k0", "k1", "k2");
                ContractFixture f = new ContractFixture(proxy.hostAndPort(), server.hostAndPort(), deferMode())) {
            holder.awaitLine("HELD", Duration.ofSeconds(60));
            f.deferrals.startWorker(4);
            long producing = System.nanoTime();
            produce(args, messages);
            events.add(String.format("produced in %.1f s", (System.nanoTime() - producing) / 1e9));
            List<String> childArgs = new ArrayList<>(List.of(
                    starter().getName(),
                    Integer.toString(server.port()),
                    deferMode().name(),
                    Integer.toString(concurrency())));
            childArgs.addAll(args);
            try (JvmProcess child = JvmProcess.start(
                    ContractConsumerMain.class, List.of("-Xmx256m"), childArgs.toArray(String[]::new))) {
                child.awaitLine("READY", Duration.ofSeconds(60));
                awaitHandled(f, n / 10, "before the kill", () -> child.output().toString());
                child.kill();
                logAtKill = f.record.llen(ContractFixture.LOG);
                events.add("kill at " + handled(f));
            }
            AutoCloseable consumer = newStarter().start(args, f, counts, concurrency());
            try {
                awaitHandled(f, n / 5, "before the hot keys' release", () -> "");
                f.record.set("release-now", "1");
                holder.awaitLine("RELEASED", Duration.ofSeconds(30));
                events.add("release at " + handled(f));
                awaitHandled(f, 3 * n / 10, "before the 1 s outage", () -> "");
                events.add(outage(f, proxy, Duration.ofSeconds(1), n, outages));
                awaitHandled(f, 9 * n / 20, "before the 5 s outage", () -> "");
                events.add(outage(f, proxy, Duration.ofSeconds(5), n, outages));
                awaitHandled(f, 3 * n / 5, "before the broker restart", () -> "");
                long atRestart = handled(f);
                if (canRestartBroker()) {
                    assertThat(atRestart)
                            .as("still flowing at the broker restart")
                            .isLessThan(n);
                    restartBroker();
                    events.add("broker restart at " + atRestart);
                } else {
                    String skipped = "broker restart skipped at " + atRestart + " (not ours to restart)";
                    System.out.printf("adapter contract %s: %s%n", adapter(), skipped);
                    events.add(skipped);
                }
                await("all " + n + " handled, the poison dead-lettered, nothing left")
                        .atMost(Duration.ofSeconds(180))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> handled(f) == n
                                && deadLetters(args) >= 1
                                && f.deferralsLeft() == 0
                                && settled(args, messages.size()));
            } finally {
                consumer.close();
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            HandlingLog log = HandlingLog.of(f.record.lrange(ContractFixture.LOG, 0, -1));
            Repeats repeats = Repeats.of(log, logAtKill, outages, concurrency());
            List<String> poison = f.record.lrange(ContractFixture.POISON, 0, -1);
            List<Long> gaps = gaps(poison);
            long dead = deadLetters(args);
            System.out.printf(
                    "adapter contract %s (concurrency %d, %s): %d messages over %d keys in %.1f s; lost %d,"
                            + " duplicates %d (cut by the kill %d, bound %d; by an outage %s; other %s), inversions %d %s, dead letters %d (poison: %d runs,"
                            + " gaps %s ms), deferred here %d, Redis waits here %d; %s%n",
                    adapter(),
                    concurrency(),
                    deferMode(),
                    n,
                    keys,
                    seconds,
                    n - log.firstHandlings(),
                    log.duplicates(),
                    repeats.byKill().size(),
                    concurrency(),
                    repeats.byOutage(),
                    repeats.other(),
                    log.inversions(),
                    log.firstInversions(),
                    dead,
                    poison.size(),
                    gaps,
                    counts.deferred.get(),
                    counts.redisWaits.get(),
                    events);
            assertThat(log.firstHandlings()).as("handled ids").isEqualTo(n);
            assertThat(log.inversions())
                    .as("order inversions: %s", log.firstInversions())
                    .isZero();
            assertThat(repeats.byKill())
                    .as("runs repeated of handlings cut by the kill (one per thread of the killed JVM)")
                    .hasSizeLessThanOrEqualTo(concurrency());
            assertThat(repeats.other())
                    .as("runs repeated, neither cut by the kill nor by an outage")
                    .isEmpty();
            assertThat(repeats.byOutage())
                    .as("runs repeated of handlings cut by an outage")
                    .hasSizeLessThanOrEqualTo(outageRepeatsAllowed(outages.size()));
            assertThat(dead).as("dead letters (only the poison)").isEqualTo(1);
            assertThat(poison).as("poison runs").hasSizeGreaterThanOrEqualTo(ContractFixture.MAX_ATTEMPTS);
            // the runs of the delivery that was dead-lettered: the last MAX_ATTEMPTS (a delivery cut by a broker
            // restart or a rebalance starts its attempts again where the broker keeps no delivery count: Kafka)
            List<String> last = poison.subList(poison.size() - ContractFixture.MAX_ATTEMPTS, poison.size());
            List<Long> lastGaps = gaps(last);
            for (int i = 0; i < lastGaps.size(); i++) {
                long configured = ContractFixture.RETRY_BACKOFF.delay(i + 1).toMillis();
                assertThat(lastGaps.get(i))
                        .as("gap after failed attempt %d (configured %d ms); runs %s", i + 1, configured, poison)
                        .isBetween(configured - 20, configured + 3_000);
            }
            long firstRun = millis(poison.get(0));
            long lastRun = millis(poison.get(poison.size() - 1));
            // an outage (and the outage gate's backoff after it, up to 5 s) stops every other key too
            boolean outageMeanwhile = outages.stream().anyMatch(w -> w[2] <= lastRun && firstRun <= w[3] + 6_000);
            if (concurrency() > 1 && !outageMeanwhile) {
                // from its first run to its last: a delivery restarted by a rebalance (Kafka) may retry at the very
                // end, when only the records behind it on its own partition are left
                assertThat(handledAt(poison.get(poison.size() - 1)))
                        .as("other keys handled while the poison was retried")
                        .isGreaterThan(handledAt(poison.get(0)));
            }
            assertThat(counts.redisWaits).as("messages that waited for Redis").hasPositiveValue();
        }
    }

    @Test
    void redisDownFor30s_whileMessagesFlow_deadLettersNothing_losesNothing_keepsEachKeysOrder(RedisServer server)
            throws Exception {
        Assumptions.assumeTrue(
                Boolean.parseBoolean(System.getProperty(LONG_OUTAGE_PROPERTY, "true")),
                LONG_OUTAGE_PROPERTY + "=false: the 30 s outage test is skipped");
        int n = OUTAGE_MESSAGES;
        List<ContractMessage> messages = messages(n, 100);
        long started = System.nanoTime();
        List<String> args = openChannel("contract-outage-" + UUID.randomUUID());
        Counts counts = new Counts();
        List<long[]> outages = new ArrayList<>();
        try (FaultProxy proxy = FaultProxy.to(server);
                JvmProcess holder = JvmProcess.start(HolderMain.class, Integer.toString(server.port()), "k0");
                ContractFixture f = new ContractFixture(proxy.hostAndPort(), server.hostAndPort(), deferMode())) {
            holder.awaitLine("HELD", Duration.ofSeconds(60));
            f.deferrals.startWorker(4);
            produce(args, messages);
            String outage;
            AutoCloseable consumer = newStarter().start(args, f, counts, concurrency());
            try {
                awaitHandled(f, n / 5, "before the outage", () -> "");
                outage = outage(f, proxy, Duration.ofSeconds(30), n, outages);
                f.record.set("release-now", "1");
                holder.awaitLine("RELEASED", Duration.ofSeconds(30));
                await("all " + n + " handled, nothing left")
                        .atMost(Duration.ofSeconds(180))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> handled(f) == n && f.deferralsLeft() == 0 && settled(args, n));
            } finally {
                consumer.close();
            }
            HandlingLog log = HandlingLog.of(f.record.lrange(ContractFixture.LOG, 0, -1));
            Repeats repeats = Repeats.of(log, 0, outages, concurrency());
            long dead = deadLetters(args);
            System.out.printf(
                    "adapter contract %s (concurrency %d, %s), Redis down 30 s: %d messages in %.1f s; lost %d,"
                            + " duplicates %d (by the outage %s; other %s), inversions %d %s, dead letters %d, deferred %d,"
                            + " Redis waits %d; %s%n",
                    adapter(),
                    concurrency(),
                    deferMode(),
                    n,
                    (System.nanoTime() - started) / 1e9,
                    n - log.firstHandlings(),
                    log.duplicates(),
                    repeats.byOutage(),
                    repeats.other(),
                    log.inversions(),
                    log.firstInversions(),
                    dead,
                    counts.deferred.get(),
                    counts.redisWaits.get(),
                    outage);
            assertThat(dead).as("dead letters").isZero();
            assertThat(counts.deadLettered).as("dead-lettered (listener)").hasValue(0);
            assertThat(counts.failed).as("attempts spent (listener)").hasValue(0);
            assertThat(log.firstHandlings()).as("handled ids").isEqualTo(n);
            assertThat(repeats.other())
                    .as("runs repeated, not cut by the outage")
                    .isEmpty();
            assertThat(repeats.byOutage())
                    .as("runs repeated of handlings cut by the outage (longer than half the 30 s lease: the done"
                            + " marker of a handling it cut gives up, and the retry may run it again, one per thread)")
                    .hasSizeLessThanOrEqualTo(concurrency());
            assertThat(log.inversions())
                    .as("order inversions: %s", log.firstInversions())
                    .isZero();
            assertThat(counts.redisWaits).as("messages that waited for Redis").hasPositiveValue();
        }
    }

    /** {@code n} messages, message {@code i} of key {@code k<i % keys>} with seq {@code i / keys}. */
    static List<ContractMessage> messages(int n, int keys) {
        List<ContractMessage> out = new ArrayList<>(n + 1);
        for (int i = 0; i < n; i++) {
            out.add(new ContractMessage("m" + i, "k" + (i % keys), i / keys, false));
        }
        return out;
    }

    private ConsumerStarter newStarter() throws ReflectiveOperationException {
        return starter().getDeclaredConstructor().newInstance();
    }

    private static long handled(ContractFixture f) {
        return f.record.hlen(ContractFixture.HANDLED);
    }

    private static void awaitHandled(ContractFixture f, long atLeast, String when, Callable<String> more) {
        try {
            await("at least " + atLeast + " handled " + when)
                    .atMost(STEP)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> handled(f) >= atLeast);
        } catch (RuntimeException e) {
            String extra;
            try {
                extra = more.call();
            } catch (Exception ignored) {
                extra = "";
            }
            throw new AssertionError(
                    e.getMessage() + "; handled " + handled(f) + ", deferrals left " + f.deferralsLeft() + " " + extra,
                    e);
        }
    }

    /** Refuses every connection to Redis through the proxy for {@code length}, while messages flow. */
    private static String outage(ContractFixture f, FaultProxy proxy, Duration length, int n, List<long[]> windows)
            throws InterruptedException {
        long before = handled(f);
        assertThat(before).as("still flowing at the outage").isLessThan(n);
        long from = f.record.llen(ContractFixture.LOG);
        long started = System.currentTimeMillis();
        proxy.refuse();
        Thread.sleep(length.toMillis()); // the fault lasts this long
        proxy.heal();
        windows.add(new long[] {from, f.record.llen(ContractFixture.LOG), started, System.currentTimeMillis()});
        return length.toSeconds() + " s outage at " + before;
    }

    /**
     * How many runs may repeat a handling cut by {@code outages} Redis outages: none. A handling that ran just as
     * Redis went away used to run twice (its done marker, a plain SET after the handler, and its unlock failed;
     * the retry found the key held by its own unreleased lock and ran the handler again after the lease: Kafka
     * 0 to 3 per run, Streams 0 to 1); the marker write now waits the outage out ({@code DoneMarkerOutageIT}),
     * for up to half the lock's lease (15 s here), which the 1 s and 5 s outages stay under.
     */
    protected int outageRepeatsAllowed(int outages) {
        return 0;
    }

    /**
     * The repeated runs told apart by what cut their first run: the kill (logged before it), an outage (logged
     * from a few handlings before it began to its end), or nothing the contract did.
     */
    record Repeats(List<HandlingLog.Repeat> byKill, List<HandlingLog.Repeat> byOutage, List<HandlingLog.Repeat> other) {
        static Repeats of(HandlingLog log, long logAtKill, List<long[]> outages, int concurrency) {
            long margin = 2L * concurrency + 4; // handlings logged just before the outage, their marker not yet
            List<HandlingLog.Repeat> kill = new ArrayList<>();
            List<HandlingLog.Repeat> outage = new ArrayList<>();
            List<HandlingLog.Repeat> other = new ArrayList<>();
            for (HandlingLog.Repeat r : log.repeats()) {
                if (r.first() < logAtKill) {
                    kill.add(r);
                } else if (outages.stream().anyMatch(w -> r.first() >= w[0] - margin && r.first() <= w[1])) {
                    outage.add(r);
                } else {
                    other.add(r);
                }
            }
            return new Repeats(kill, outage, other);
        }
    }

    private static List<Long> gaps(List<String> poisonRuns) {
        List<Long> out = new ArrayList<>();
        for (int i = 1; i < poisonRuns.size(); i++) {
            out.add(millis(poisonRuns.get(i)) - millis(poisonRuns.get(i - 1)));
        }
        return out;
    }

    private static long millis(String run) {
        return Long.parseLong(run.substring(0, run.indexOf(':')));
    }

    private static long handledAt(String run) {
        return Long.parseLong(run.substring(run.indexOf(':') + 1));
    }

    /** What the test JVM's consumer heard. */
    static final class Counts implements ConsumerListener {
        final AtomicInteger deferred = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicInteger redisWaits = new AtomicInteger();
        final AtomicInteger deadLettered = new AtomicInteger();

        @Override
        public void onHandled(String messageId, Outcome outcome, Duration took) {
            if (outcome == Outcome.DEFERRED) {
                deferred.incrementAndGet();
            }
        }

        @Override
        public void onFailed(String messageId, int attempt, Throwable error) {
            failed.incrementAndGet();
        }

        @Override
        public void onRedisUnavailable(String messageId, Throwable error) {
            redisWaits.incrementAndGet();
        }

        @Override
        public void onDeadLettered(String messageId, String reason) {
            deadLettered.incrementAndGet();
        }
    }
}
