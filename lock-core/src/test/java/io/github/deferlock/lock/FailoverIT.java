package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisSentinelGroup;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Kills the master that serves a contended lock (Sentinel primary; a cluster master with a replica) and
 * measures, with a {@link FencedResource} on a separate redis-server (which the failover does not touch):
 * time until locks are granted again, double grants (two holders inside at once, by the resource's
 * occupancy counter), writes it rejected for a token not above the last accepted one, stale writes it
 * accepted (a write whose token was below one that had already entered: only an overlap can cause it), and
 * whether {@code READONLY} ever reached a user. Asserted for every run: without a double grant no write is
 * refused and none is stale — tokens keep increasing across the failover; with {@code waitForReplicas} no
 * double grant at all. Figures go to the log and to {@code target/failover-figures.txt}.
 */
final class FailoverIT {
    private static final Logger LOG = LoggerFactory.getLogger(FailoverIT.class);
    private static final String NAME = "res";

    private record Figures(
            String topology,
            boolean waitForReplicas,
            long recoveryMs,
            long doubleGrants,
            long staleAccepted,
            long staleRejected,
            long writes,
            long readOnly,
            long otherErrors) {}

    @ParameterizedTest(name = "sentinel waitForReplicas={0}")
    @ValueSource(booleans = {false, true})
    void killPrimary_sentinel_locksRecoverFencedAndNoReadOnly(boolean withWait) throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
                UnifiedJedis a = group.newClient();
                UnifiedJedis b = group.newClient()) {
            Duration bound = group.downAfter().plus(group.failoverTimeout()).plusSeconds(2);
            Figures f = run("sentinel", withWait, a, b, bound, () -> {
                RedisServer old = group.primary();
                old.kill();
                return old;
            });
            check(f, bound);
        }
    }

    /**
     * With {@code waitForReplicas(1)} the promoted replica has no replica of its own, so {@code WAIT 1} fails
     * and no lock on that shard is granted until the killed node is restarted and rejoins as its replica
     * (the intended trade-off, like {@code min-replicas-to-write}); recovery is measured from the kill and
     * from that restart.
     */
    @ParameterizedTest(name = "cluster waitForReplicas={0}")
    @ValueSource(booleans = {false, true})
    void killMaster_clusterWithReplica_locksRecoverFencedAndNoReadOnly(boolean withWait) throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().replicas(true).start();
                UnifiedJedis a = cluster.newClient();
                UnifiedJedis b = cluster.newClient()) {
            // cluster failover: node timeout to mark it failed, then a replica election (about a node timeout)
            Duration bound = cluster.nodeTimeout().multipliedBy(3).plusSeconds(2);
            AtomicLong restartedAt = new AtomicLong();
            Thread restarter = new Thread(() -> {
                cluster.awaitHealthy(Duration.ofSeconds(20));
                RedisServer old = cluster.nodes().stream()
                        .filter(n -> !n.isRunning())
                        .findFirst()
                        .orElseThrow();
                old.restart(); // rejoins as a replica of the promoted one
                restartedAt.set(System.nanoTime());
            });
            restarter.setDaemon(true);
            Figures f = run("cluster", withWait, a, b, bound, () -> {
                RedisServer old = cluster.masterFor("lock:{" + NAME + "}");
                old.kill();
                if (withWait) {
                    restarter.start();
                }
                return old;
            });
            if (withWait) {
                restarter.join(20_000);
                long fromRestartMs = (lastRecoveredAt - restartedAt.get()) / 1_000_000;
                LOG.info("cluster waitForReplicas=true: locks granted again {} ms after the restart", fromRestartMs);
                appendFigure("cluster waitForReplicas=true recoveryAfterRestartMs=" + fromRestartMs);
                assertThat(restartedAt.get()).as("restart time").isNotZero();
                assertThat(fromRestartMs).as("recovery after the restart (ms)").isLessThanOrEqualTo(bound.toMillis());
                checkFencing(f);
            } else {
                check(f, bound);
            }
            assertThat(f.readOnly()).as("READONLY errors seen by users").isZero();
        }
    }

    private static void check(Figures f, Duration bound) {
        assertThat(f.readOnly()).as("READONLY errors seen by users").isZero();
        checkFencing(f);
        assertThat(f.recoveryMs()).as("recovery time (ms)").isLessThanOrEqualTo(bound.toMillis());
    }

    /**
     * What fencing promises, from the resource's own counters: the writes happened; without an overlap no
     * write was refused (tokens never went backwards across the failover, so no sole holder is locked out)
     * and none was stale; with {@code waitForReplicas} there is no overlap at all.
     */
    private static void checkFencing(Figures f) {
        assertThat(f.writes()).as("writes accepted by the resource").isGreaterThan(70);
        if (f.waitForReplicas()) {
            assertThat(f.doubleGrants())
                    .as("double grants with waitForReplicas")
                    .isZero();
        }
        if (f.doubleGrants() == 0) {
            assertThat(f.staleRejected())
                    .as("writes refused without any overlap")
                    .isZero();
            assertThat(f.staleAccepted())
                    .as("stale writes accepted without any overlap")
                    .isZero();
        }
    }

    private interface Fault {
        RedisServer inject();
    }

    private Figures run(String topology, boolean withWait, UnifiedJedis a, UnifiedJedis b, Duration bound, Fault fault)
            throws Exception {
        FencedResource resource = new FencedResource(resourceRedis, topology + "-" + withWait);
        AtomicLong readOnly = new AtomicLong();
        AtomicLong otherErrors = new AtomicLong();
        AtomicLong killedAt = new AtomicLong();
        AtomicLong recoveredAt = new AtomicLong();
        ConcurrentLinkedQueue<String> samples = new ConcurrentLinkedQueue<>();
        AtomicReference<String> lastError = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        List<RedisLocks> all = new ArrayList<>();
        volatileStop = false;
        for (UnifiedJedis client : List.of(a, b)) {
            RedisLocks.Builder builder = RedisLocks.builder(client).defaultLease(Duration.ofSeconds(2));
            if (withWait) {
                builder.waitForReplicas(1, Duration.ofMillis(200));
            }
            RedisLocks locks = builder.build();
            all.add(locks);
            for (int t = 0; t < 2; t++) {
                Thread th = new Thread(() -> {
                    DistributedLock lock = locks.get(NAME);
                    while (!volatileStop) {
                        try {
                            long asked = System.nanoTime();
                            var lease = lock.tryAcquire(Duration.ofMillis(300));
                            if (lease.isEmpty()) {
                                continue;
                            }
                            try (LockLease l = lease.get()) {
                                resource.enter(l.fencingToken());
                                resource.writeAndExitCountingStale(l.fencingToken(), l.fencingToken());
                                if (killedAt.get() != 0 && asked > killedAt.get()) {
                                    recoveredAt.compareAndSet(0, System.nanoTime());
                                }
                            }
                        } catch (RuntimeException e) {
                            String text = String.valueOf(e) + " " + String.valueOf(e.getCause());
                            if (text.contains("READONLY")) {
                                readOnly.incrementAndGet();
                            } else {
                                otherErrors.incrementAndGet();
                            }
                            lastError.set(text);
                            if (samples.size() < 5) {
                                samples.add(text);
                            }
                        }
                    }
                });
                th.setDaemon(true);
                threads.add(th);
                th.start();
            }
        }
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> resource.counter("accepted") > 50);
        long start = System.nanoTime();
        fault.inject(); // returns once the process is dead
        killedAt.set(System.nanoTime());
        try {
            org.awaitility.Awaitility.await().atMost(bound.plusSeconds(10)).until(() -> recoveredAt.get() != 0);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "no grant after the kill; first errors " + samples + ", last error " + lastError.get(), e);
        }
        lastRecoveredAt = recoveredAt.get();
        long writesAtRecovery = resource.counter("accepted");
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> resource.counter("accepted") > writesAtRecovery + 20);
        volatileStop = true;
        for (Thread th : threads) {
            th.join(5000);
        }
        all.forEach(RedisLocks::close);
        Figures f = new Figures(
                topology,
                withWait,
                (recoveredAt.get() - start) / 1_000_000,
                resource.counter("overlaps"),
                resource.counter("staleAccepted"),
                resource.counter("rejected"),
                resource.counter("accepted"),
                readOnly.get(),
                otherErrors.get());
        LOG.info("failover figures {} (error samples: {})", f, samples);
        appendFigure(f + " bound=" + bound.toMillis() + "ms");
        return f;
    }

    private static void appendFigure(String line) throws java.io.IOException {
        Files.writeString(
                Path.of("target", "failover-figures.txt"),
                line + System.lineSeparator(),
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    private volatile long lastRecoveredAt;

    /** The fenced resource's own server, apart from the deployment whose master is killed. */
    private static RedisServer resourceServer;

    private static UnifiedJedis resourceRedis;

    @BeforeAll
    static void startResourceServer() {
        resourceServer = RedisServer.start();
        resourceRedis = resourceServer.newClient();
    }

    @AfterAll
    static void stopResourceServer() {
        resourceRedis.close();
        resourceServer.close();
    }

    private volatile boolean volatileStop;
}
