package io.github.deferlock.soak;

import io.github.deferlock.delay.DeadLetter;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.JobInfo;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.RedisClient;

/**
 * Runs one {@link Plan}: a queue/lock redis-server with AOF {@code appendfsync always} behind a {@link
 * FaultProxy}, a separate recorder redis-server that no fault touches, and {@link Settings#clients()} client
 * JVMs ({@link SoakClient}). It applies the plan's faults on time, stops the load once the last fault is over,
 * waits for the queue to drain (at least the visibility timeout), reads the histories and checks them. Not
 * threadsafe; one run at a time.
 */
final class ScheduleRun {

    private static final List<String> CLIENT_JVM_OPTIONS = List.of(
            "-Xmx128m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xss512k",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=error");

    /** Client JVMs alive now, killed by a shutdown hook if the runner is stopped mid-schedule. */
    private static final Set<JvmProcess> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> List.copyOf(LIVE).forEach(JvmProcess::close), "soak-cleanup"));
    }

    private final Plan plan;
    private final Settings settings;
    private final JvmProcess[] clients;
    private final int[] generations;
    private final Object redisFaults = new Object();
    private final Object proxyFaults = new Object();
    private final Map<Fault.Kind, Integer> applied = new EnumMap<>(Fault.Kind.class);
    /** Every client JVM this run started (all closed at its end, whatever faults replaced them). */
    private final List<JvmProcess> startedClients = new ArrayList<>();
    /** The client JVMs a fault killed: their failure to start or to take a signal is the fault, not the harness's. */
    private final Set<JvmProcess> killed = ConcurrentHashMap.newKeySet();

    private RedisServer data;
    private FaultProxy proxy;
    private RedisServer recorderServer;

    private ScheduleRun(Plan plan) {
        this.plan = plan;
        this.settings = plan.settings();
        this.clients = new JvmProcess[settings.clients()];
        this.generations = new int[settings.clients()];
    }

    /**
     * Runs {@code plan} and checks what it recorded.
     *
     * @throws IllegalStateException when the harness itself fails (a server or JVM does not start): that is
     *     not a verdict on the library
     */
    static Result run(Plan plan) {
        return new ScheduleRun(plan).run();
    }

    private Result run() {
        long started = System.nanoTime();
        try (RedisServer dataServer = RedisServer.builder()
                        .appendOnly(true)
                        .appendFsync("always")
                        .start();
                RedisServer recorderRedis = RedisServer.start();
                FaultProxy faultProxy = FaultProxy.to(dataServer);
                RedisClient recorderClient = recorderRedis.newClient()) {
            this.data = dataServer;
            this.proxy = faultProxy;
            this.recorderServer = recorderRedis;
            Recorder recorder = new Recorder(recorderClient);
            recorder.phase("run");
            for (int slot = 0; slot < clients.length; slot++) {
                clients[slot] = startClient(slot);
            }
            for (JvmProcess c : clients) {
                awaitReady(c);
            }
            long loadStart = System.nanoTime();
            runFaults();
            long left = settings.loadMs() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - loadStart);
            sleep(left);
            recorder.phase("drain");
            long settleStart = System.nanoTime();
            History history = settle(recorder);
            long settleMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - settleStart);
            List<Violation> violations = Checker.check(plan.seed(), history);
            return new Result(
                    plan,
                    history,
                    violations,
                    Map.copyOf(applied),
                    settleMs,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    dataServer.version());
        } finally {
            List<JvmProcess> all;
            synchronized (clients) {
                all = List.copyOf(startedClients);
            }
            for (JvmProcess c : all) {
                c.close();
                LIVE.remove(c);
            }
        }
    }

    /**
     * Waits for {@code client}'s READY line. A client a fault killed before it was ready (a {@code client_kill}
     * landing on a replacement still starting) is no harness failure: it simply never ran, and whatever it
     * recorded is checked like any killed client's history.
     *
     * @throws IllegalStateException when a client no fault killed did not start
     */
    private void awaitReady(JvmProcess client) {
        try {
            client.awaitLine("READY", Duration.ofSeconds(60));
        } catch (IllegalStateException e) {
            if (!killed.contains(client)) {
                throw e;
            }
        }
    }

    private JvmProcess startClient(int slot) {
        String name = "c" + slot + "g" + generations[slot]++;
        JvmProcess p = JvmProcess.start(
                SoakClient.class,
                CLIENT_JVM_OPTIONS,
                Integer.toString(proxy.port()),
                Integer.toString(recorderServer.port()),
                name,
                plan.selfAck().get(slot) ? "1" : "0",
                Long.toString(settings.leaseMs()),
                Long.toString(settings.visibilityMs()));
        LIVE.add(p);
        startedClients.add(p);
        return p;
    }

    /** Applies every fault at its time, each on its own thread; returns once all are over. */
    private void runFaults() {
        ScheduledExecutorService pool =
                Executors.newScheduledThreadPool(Math.max(1, plan.faults().size()));
        try {
            List<ScheduledFuture<?>> futures = new ArrayList<>();
            for (Fault f : plan.faults()) {
                futures.add(pool.schedule(() -> apply(f), f.atMs(), TimeUnit.MILLISECONDS));
            }
            for (ScheduledFuture<?> future : futures) {
                try {
                    future.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("fault harness failed: " + e.getCause(), e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void apply(Fault f) {
        switch (f.kind()) {
            case CLIENT_KILL -> {
                JvmProcess victim;
                synchronized (clients) {
                    victim = clients[f.slot()];
                    killed.add(victim); // before the signal: its READY wait may fail at once
                    victim.kill();
                    LIVE.remove(victim);
                }
                sleep(f.durationMs());
                JvmProcess fresh;
                synchronized (clients) {
                    if (clients[f.slot()] != victim) {
                        // another kill of the same client replaced it already: one replacement per client
                        fresh = null;
                    } else {
                        fresh = startClient(f.slot());
                        clients[f.slot()] = fresh;
                    }
                }
                if (fresh != null) {
                    awaitReady(fresh);
                }
            }
            case CLIENT_STOP -> {
                JvmProcess target;
                synchronized (clients) {
                    target = clients[f.slot()];
                    try {
                        target.pause();
                    } catch (RuntimeException gone) {
                        if (!killed.contains(target)) {
                            throw gone;
                        }
                        // killed by another fault and not yet replaced: nothing to stop
                    }
                }
                sleep(f.durationMs());
                try {
                    target.resume();
                } catch (RuntimeException gone) {
                    // killed meanwhile by another fault
                }
            }
            case REDIS_KILL -> {
                synchronized (redisFaults) {
                    data.kill();
                    sleep(f.durationMs());
                    data.restart();
                }
            }
            case PROXY_CUT -> proxy.cut();
            case PROXY_BLACKHOLE, PROXY_BLACKHOLE_REPLIES, PROXY_LATENCY -> {
                synchronized (proxyFaults) {
                    if (f.kind() == Fault.Kind.PROXY_BLACKHOLE) {
                        proxy.blackhole();
                    } else if (f.kind() == Fault.Kind.PROXY_BLACKHOLE_REPLIES) {
                        proxy.blackholeReplies();
                    } else {
                        proxy.latency(Duration.ofMillis(f.latencyMs()));
                    }
                    sleep(f.durationMs());
                    proxy.heal();
                }
            }
        }
        synchronized (applied) {
            applied.merge(f.kind(), 1, Integer::sum);
        }
    }

    /**
     * Waits at least the visibility timeout, then until nothing is due or in flight (at most {@link
     * Settings#settleMaxMs()}), then reads the events and the queue as it is (directly, not through the
     * proxy): the state of every job the producers enqueued, and the reason of every dead letter.
     */
    private History settle(Recorder recorder) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.settleMaxMs());
        sleep(settings.visibilityMs());
        try (RedisClient direct = data.newClient()) {
            DelayQueue<String> queue = DelayQueue.builder(direct, SoakClient.QUEUE, String.class)
                    .visibilityTimeout(Duration.ofMillis(settings.visibilityMs()))
                    .build();
            while (System.nanoTime() < deadline
                    && (queue.size(JobState.DUE) > 0 || queue.size(JobState.IN_FLIGHT) > 0)) {
                sleep(200);
            }
            long due = queue.size(JobState.DUE);
            long inFlight = queue.size(JobState.IN_FLIGHT);
            List<String> events = recorder.events();
            History.Builder ids = new History.Builder();
            events.forEach(ids::line);
            Map<String, String> states = new HashMap<>();
            List<String> produced = new ArrayList<>(ids.enqueued);
            produced.addAll(ids.enqueueUnknown);
            for (String id : produced) {
                queue.get(id).map(JobInfo::state).ifPresent(state -> states.put(id, state.name()));
            }
            Map<String, String> deadReasons = new HashMap<>();
            for (DeadLetter d : queue.deadLetters().list(DelayQueue.MAX_DEAD_LIST)) {
                deadReasons.put(d.id(), d.reason());
            }
            return History.parse(events, new History.QueueEnd(due, inFlight, states, deadReasons));
        }
    }

    private static void sleep(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * What one schedule did and found.
     *
     * @param plan the schedule
     * @param history what it recorded
     * @param violations what the checker found
     * @param faults faults applied, by kind
     * @param settleMs how long the queue took to drain after the faults (bounded by the settle maximum)
     * @param elapsedMs the whole schedule, servers and JVMs included
     * @param redisVersion the queue/lock server's version
     */
    record Result(
            Plan plan,
            History history,
            List<Violation> violations,
            Map<Fault.Kind, Integer> faults,
            long settleMs,
            long elapsedMs,
            String redisVersion) {}
}
