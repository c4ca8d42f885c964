package io.github.deferlock.soak;

import io.github.deferlock.delay.DeadLetter;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.JobInfo;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisSentinelGroup;
import io.github.deferlock.testing.RedisServer;
import java.nio.file.Path;
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
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Runs one {@link Plan}: a queue/lock deployment of the plan's {@link Topology} (standalone: a redis-server
 * with AOF {@code appendfsync always} behind a {@link FaultProxy}; a Sentinel group; a cluster of 3 masters
 * with replicas), a separate recorder redis-server that no fault touches, and {@link Settings#clients()} client
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

    /**
     * The longest wait for a failover, a rejoin (full resync included) or a healthy cluster: far above the 2–4
     * s they take on an idle box; a restarted cluster node missed 1 min once at load averages near 30.
     */
    private static final Duration TOPOLOGY_CHANGE = Duration.ofMinutes(2);

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
    /** The replacement client JVMs the faults started, awaited once the faults are over. */
    private final List<JvmProcess> replacements = new ArrayList<>();

    private RedisServer data;
    private FaultProxy proxy;
    private RedisSentinelGroup group;
    private RedisCluster cluster;
    private String dataAddress;
    private String version;
    private RedisServer recorderServer;
    private Recorder recorder;

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
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            RedisServer recorderRedis = keep(resources, RedisServer.start());
            RedisClient recorderClient = keep(resources, recorderRedis.newClient());
            this.recorderServer = recorderRedis;
            startDeploymentRetried(resources);
            this.recorder = new Recorder(recorderClient);
            recorder.phase("run");
            for (int slot = 0; slot < clients.length; slot++) {
                clients[slot] = startClient(slot);
            }
            for (JvmProcess c : clients) {
                awaitReady(c);
            }
            long loadStart = System.nanoTime();
            runFaults();
            List<JvmProcess> fresh;
            synchronized (replacements) {
                fresh = List.copyOf(replacements);
            }
            for (JvmProcess c : fresh) {
                awaitReady(c);
            }
            long left = settings.loadMs() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - loadStart);
            sleep(left);
            recorder.phase("drain");
            long settleStart = System.nanoTime();
            History history = settle(recorder);
            long settleMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - settleStart);
            Checker.Verdict verdict = Checker.judge(plan.seed(), history);
            Path kept = verdict.violations().isEmpty() ? null : keepEvidence();
            return new Result(
                    plan,
                    history,
                    verdict.violations(),
                    Map.copyOf(applied),
                    verdict.failoverLosses(),
                    verdict.lossDetails(),
                    settleMs,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    version,
                    kept);
        } finally {
            List<JvmProcess> all;
            synchronized (clients) {
                all = List.copyOf(startedClients);
            }
            for (JvmProcess c : all) {
                c.close();
                LIVE.remove(c);
            }
            for (int i = resources.size() - 1; i >= 0; i--) {
                try {
                    resources.get(i).close();
                } catch (Exception e) {
                    // best effort: every process is also stopped by its class's shutdown hook
                }
            }
        }
    }

    /**
     * Keeps the events and every client JVM's output of this schedule ({@link Evidence}); null when that
     * fails (the verdict stands either way).
     */
    private Path keepEvidence() {
        try {
            Map<String, List<String>> outputs = new java.util.LinkedHashMap<>();
            List<JvmProcess> all;
            synchronized (clients) {
                all = List.copyOf(startedClients);
            }
            for (int i = 0; i < all.size(); i++) {
                outputs.put("client-" + (i + 1), all.get(i).output());
            }
            return Evidence.keep(
                    Evidence.root(), plan.seed(), settings.topology().option(), recorder.events(), outputs);
        } catch (RuntimeException e) {
            System.err.println("soak: could not keep the evidence of seed " + plan.seed() + ": " + e);
            return null;
        }
    }

    private static <T extends AutoCloseable> T keep(List<AutoCloseable> resources, T resource) {
        resources.add(resource);
        return resource;
    }

    /**
     * Starts the deployment, up to 3 times: test-support's start bounds (a replica in sync within 20 s) were
     * missed once at a load average near 30 (cluster seed 18), which says nothing about the library.
     */
    private void startDeploymentRetried(List<AutoCloseable> resources) {
        for (int attempt = 1; ; attempt++) {
            List<AutoCloseable> mine = new ArrayList<>();
            try {
                startDeployment(mine);
                resources.addAll(mine);
                return;
            } catch (IllegalStateException e) {
                for (int i = mine.size() - 1; i >= 0; i--) {
                    try {
                        mine.get(i).close();
                    } catch (Exception ignored) {
                        // best effort
                    }
                }
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    /**
     * Starts the queue/lock deployment of the plan's topology, AOF {@code appendfsync always} on every data
     * node: a redis-server behind a fault proxy, a Sentinel group, or a cluster of 3 masters with a replica each.
     */
    private void startDeployment(List<AutoCloseable> resources) {
        switch (settings.topology()) {
            case STANDALONE -> {
                data = keep(
                        resources,
                        RedisServer.builder()
                                .appendOnly(true)
                                .appendFsync("always")
                                .start());
                proxy = keep(resources, FaultProxy.to(data));
                dataAddress = "standalone:" + proxy.port();
                version = data.version();
            }
            case SENTINEL -> {
                group = keep(
                        resources,
                        RedisSentinelGroup.builder()
                                .setting("appendonly", "yes")
                                .setting("appendfsync", "always")
                                .start());
                dataAddress = "sentinel:" + join(group.sentinels());
                version = group.servers().get(0).version();
            }
            case CLUSTER -> {
                cluster = keep(
                        resources,
                        RedisCluster.builder()
                                .replicas(true)
                                .setting("appendonly", "yes")
                                .setting("appendfsync", "always")
                                .start());
                dataAddress = "cluster:" + join(cluster.seeds());
                version = cluster.node(0).version();
            }
        }
    }

    private static String join(java.util.Collection<HostAndPort> hosts) {
        return hosts.stream().map(h -> h.getHost() + ":" + h.getPort()).collect(Collectors.joining(","));
    }

    /** A direct client of the deployment (not through the proxy), for the settle period. */
    private UnifiedJedis directClient() {
        return switch (settings.topology()) {
            case STANDALONE -> data.newClient();
            case SENTINEL -> group.newClient();
            case CLUSTER -> cluster.newClient();
        };
    }

    /**
     * Waits for {@code client}'s READY line. A client a fault killed before it was ready (a {@code client_kill}
     * landing on a replacement still starting) is no harness failure: it simply never ran, and whatever it
     * recorded is checked like any killed client's history.
     *
     * <p>The bound is generous (2 min, from the end of the faults for a replacement): on the shared 2-core box,
     * with a Sentinel failover under way and load averages near 30, a replacement client has been seen to take
     * over two minutes from its start to READY (most of it building its Sentinel client, locks and queues). A client that misses it is a harness error
     * carrying the client's thread dump ({@code jcmd Thread.print}), so a start that hangs says where.
     *
     * @throws IllegalStateException when a client no fault killed did not start
     */
    private void awaitReady(JvmProcess client) {
        try {
            client.awaitLine("READY", Duration.ofMinutes(2));
        } catch (IllegalStateException e) {
            if (!killed.contains(client)) {
                throw new IllegalStateException(e.getMessage() + "\nthread dump:\n" + threadDump(client), e);
            }
        }
    }

    private static String threadDump(JvmProcess client) {
        if (!client.isAlive()) {
            return "(exited)";
        }
        try {
            Process p = new ProcessBuilder("jcmd", Long.toString(client.pid()), "Thread.print")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            p.waitFor(30, TimeUnit.SECONDS);
            // the threads running deferlock or soak code only
            StringBuilder sb = new StringBuilder();
            for (String block : out.split("\n\n")) {
                if (block.contains("io.github.deferlock")) {
                    sb.append(block).append("\n\n");
                }
            }
            return sb.toString();
        } catch (java.io.IOException | InterruptedException e) {
            return "(no thread dump: " + e + ")";
        }
    }

    private JvmProcess startClient(int slot) {
        String name = "c" + slot + "g" + generations[slot]++;
        JvmProcess p = JvmProcess.start(
                SoakClient.class,
                CLIENT_JVM_OPTIONS,
                dataAddress,
                Integer.toString(recorderServer.port()),
                name,
                plan.selfAck().get(slot) ? "1" : "0",
                Long.toString(settings.leaseMs()),
                Long.toString(settings.visibilityMs()),
                Integer.toString(settings.topology().replicas()));
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
                    // awaited once the faults are over, not here: a replacement started while a master is
                    // down can take minutes to build its clients, and the faults after this one must not wait
                    synchronized (replacements) {
                        replacements.add(fresh);
                    }
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
            case MASTER_KILL -> {
                synchronized (redisFaults) {
                    RedisServer old = group.primary();
                    long sync = syncReplicas(old, "soak-sync");
                    sleep(SYNC_LEAD_MS); // the load goes on: the replicas lag at the kill as they do under load
                    long start = System.currentTimeMillis();
                    old.kill();
                    RedisServer promoted = group.awaitFailover(old, TOPOLOGY_CHANGE);
                    sleep(f.durationMs());
                    old.restart();
                    awaitReplicaInSync(old);
                    awaitReplicasOnline(promoted);
                    recorder.event("FO", "master_kill", start, System.currentTimeMillis(), syncField(sync));
                }
            }
            case MASTER_FAILOVER -> {
                synchronized (redisFaults) {
                    cluster.awaitHealthy(TOPOLOGY_CHANGE);
                    RedisServer old = cluster.masterFor("{" + f.target() + "}");
                    long sync = syncReplicas(old, "{" + f.target() + "}:soak-sync");
                    sleep(SYNC_LEAD_MS); // the load goes on: the replicas lag at the kill as they do under load
                    long start = System.currentTimeMillis();
                    old.kill();
                    cluster.awaitHealthy(TOPOLOGY_CHANGE); // every slot on a running master: the replica took over
                    sleep(f.durationMs());
                    old.restart();
                    awaitReplicaInSync(old);
                    cluster.awaitHealthy(TOPOLOGY_CHANGE);
                    awaitReplicasOnline(cluster.masterFor("{" + f.target() + "}"));
                    recorder.event("FO", "master_failover", start, System.currentTimeMillis(), syncField(sync));
                }
            }
            case SLOT_MIGRATE -> {
                synchronized (redisFaults) {
                    cluster.awaitHealthy(TOPOLOGY_CHANGE);
                    migrateSlot(RedisCluster.slot("{" + f.target() + "}"), f.durationMs());
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

    /** How long the runner's {@code WAIT} before a master's SIGKILL waits for every replica to confirm. */
    static final long SYNC_WAIT_MS = 5_000;

    /**
     * How long the load runs between the sync point and the master's SIGKILL. Killing right after the {@code
     * WAIT} would find the replicas fully caught up and lose almost nothing; a second of load in between leaves
     * them as far behind as replication is at that moment, so the failover loses what it would lose without
     * the sync (counted), and the fencing counter's raise across data loss is exercised.
     */
    static final long SYNC_LEAD_MS = 1_000;

    /**
     * Fixes where a failover window opens, from the replication stream rather than a guess: writes {@code key}
     * on {@code master}, then {@code WAIT}s up to {@link #SYNC_WAIT_MS} for every replica of the topology. The
     * stream is ordered, so when they all confirm, every write the master acknowledged before this call began
     * is on every replica, whichever one is promoted: losing it would be a broken promise, not a failover loss.
     *
     * @return the wall-clock time taken before the write, or -1 when not every replica confirmed in time (then
     *     nothing tells which earlier writes a promotion may lose)
     */
    private long syncReplicas(RedisServer master, String key) {
        long before = System.currentTimeMillis();
        int replicas = settings.topology().replicas();
        try (Jedis j = master.newConnection()) {
            j.set(key, Long.toString(before));
            return j.waitReplicas(replicas, SYNC_WAIT_MS) >= replicas ? before : -1;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** The {@code FO} line's sync field: the time {@link #syncReplicas} returned, or {@code -} when unknown. */
    private static String syncField(long sync) {
        return sync < 0 ? "-" : Long.toString(sync);
    }

    /** How long a failover's end waits for the new master to stream to every replica again. */
    static final long REPLICAS_ONLINE_WAIT_MS = 30_000;

    /**
     * Waits, at most {@link #REPLICAS_ONLINE_WAIT_MS}, until {@code master} streams to every replica of the
     * topology ({@code connected_slaves}, each {@code online}), so that the next failover's {@link
     * #syncReplicas} can count on all of them. Best effort: a Sentinel replica the promotion did not pick can
     * stay chained behind the restarted old master for a while (it still gets the stream, but {@code WAIT} on
     * the master does not count it); then the next failover's sync is unknown, which the checker handles.
     */
    private void awaitReplicasOnline(RedisServer master) {
        int replicas = settings.topology().replicas();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REPLICAS_ONLINE_WAIT_MS);
        while (System.nanoTime() < deadline) {
            try (Jedis j = master.newConnection()) {
                String info = j.info("replication");
                long online = info.lines()
                        .filter(l -> l.startsWith("slave") && l.contains("state=online"))
                        .count();
                if (info.contains("role:master") && online >= replicas) {
                    return;
                }
            } catch (RuntimeException e) {
                // loading or busy: ask again
            }
            sleep(100);
        }
    }

    /** Waits until {@code node} is a replica whose link to its master is up (a full resync done). */
    private static void awaitReplicaInSync(RedisServer node) {
        long deadline = System.nanoTime() + TOPOLOGY_CHANGE.toNanos();
        while (true) {
            try (Jedis j = node.newConnection()) {
                String info = j.info("replication");
                if (info.contains("role:slave") && info.contains("master_link_status:up")) {
                    return;
                }
            } catch (RuntimeException e) {
                // still loading or starting
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "node " + node.port() + " did not come back as an in-sync replica within " + TOPOLOGY_CHANGE);
            }
            sleep(100);
        }
    }

    /**
     * Moves {@code slot} from its master to another one while the load runs: {@code IMPORTING} on the target,
     * {@code MIGRATING} on the source, then its keys one by one with {@code MIGRATE}, spread over {@code
     * spreadMs}, then {@code SETSLOT NODE} on every master (the target first, as redis-cli does).
     */
    private void migrateSlot(int slot, long spreadMs) {
        RedisServer source = cluster.masterForSlot(slot);
        RedisServer target = cluster.masters().stream()
                .filter(m -> m.port() != source.port())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no other master to migrate slot " + slot + " to"));
        String sourceId = onNode(source, Jedis::clusterMyId);
        String targetId = onNode(target, Jedis::clusterMyId);
        onNode(target, j -> j.clusterSetSlotImporting(slot, sourceId));
        onNode(source, j -> j.clusterSetSlotMigrating(slot, targetId));
        long deadline = System.nanoTime() + TOPOLOGY_CHANGE.toNanos();
        sleep(spreadMs / 2);
        while (true) {
            List<String> keys = onNode(source, j -> j.clusterGetKeysInSlot(slot, 1));
            if (keys.isEmpty()) {
                break;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "slot " + slot + " still has keys on the source after " + TOPOLOGY_CHANGE);
            }
            // a retried MIGRATE of a key that moved already answers NOKEY: harmless
            onNode(
                    source,
                    j -> j.sendCommand(
                            Protocol.Command.MIGRATE,
                            target.host(),
                            Integer.toString(target.port()),
                            "",
                            "0",
                            "5000",
                            "KEYS",
                            keys.get(0)));
            sleep(Math.min(100, spreadMs / 10));
        }
        sleep(spreadMs / 2);
        onNode(target, j -> j.clusterSetSlotNode(slot, targetId));
        onNode(source, j -> j.clusterSetSlotNode(slot, targetId));
        for (RedisServer m : cluster.masters()) {
            if (m.port() != source.port() && m.port() != target.port()) {
                onNode(m, j -> j.clusterSetSlotNode(slot, targetId));
            }
        }
    }

    /**
     * Runs one command on {@code node}, again on a connection error or timeout (a loaded box answers late),
     * for up to {@link #TOPOLOGY_CHANGE}. Every command sent this way may be repeated.
     */
    private static <T> T onNode(RedisServer node, java.util.function.Function<Jedis, T> command) {
        long deadline = System.nanoTime() + TOPOLOGY_CHANGE.toNanos();
        while (true) {
            try (Jedis j = node.newConnection()) {
                return command.apply(j);
            } catch (redis.clients.jedis.exceptions.JedisConnectionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                sleep(200);
            }
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
        try (UnifiedJedis direct = directClient()) {
            DelayQueue<String> queue = DelayQueue.builder(direct, SoakClient.QUEUE, String.class)
                    .visibilityTimeout(Duration.ofMillis(settings.visibilityMs()))
                    .build();
            while (System.nanoTime() < deadline && !drained(queue)) {
                sleep(200);
            }
            long due = retried(() -> queue.size(JobState.DUE));
            long inFlight = retried(() -> queue.size(JobState.IN_FLIGHT));
            List<String> events = recorder.events();
            History.Builder ids = new History.Builder();
            events.forEach(ids::line);
            Map<String, String> states = new HashMap<>();
            List<String> produced = new ArrayList<>(ids.enqueued);
            produced.addAll(ids.enqueueUnknown);
            for (String id : produced) {
                retried(() -> queue.get(id)).map(JobInfo::state).ifPresent(state -> states.put(id, state.name()));
            }
            Map<String, String> deadReasons = new HashMap<>();
            for (DeadLetter d : retried(() -> queue.deadLetters().list(DelayQueue.MAX_DEAD_LIST))) {
                deadReasons.put(d.id(), d.reason());
            }
            return History.parse(events, new History.QueueEnd(due, inFlight, states, deadReasons));
        }
    }

    /** True when nothing is due or in flight; false when the deployment cannot answer right now. */
    private static boolean drained(DelayQueue<String> queue) {
        try {
            return queue.size(JobState.DUE) == 0 && queue.size(JobState.IN_FLIGHT) == 0;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Runs a read of the settle period, again after a failure for up to 30 s: a slot map or a Sentinel
     * switch may still be catching up with the last fault.
     */
    private static <T> T retried(java.util.function.Supplier<T> read) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return read.get();
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                sleep(200);
            }
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
     * @param failoverLosses writes lost in a failover, by kind (see {@link Checker})
     * @param lossDetails the first few of those losses, described
     * @param settleMs how long the queue took to drain after the faults (bounded by the settle maximum)
     * @param elapsedMs the whole schedule, servers and JVMs included
     * @param redisVersion the queue/lock server's version
     * @param kept where the events and client outputs of a schedule with violations were kept ({@link
     *     Evidence}); null when there were none, or they could not be written
     */
    record Result(
            Plan plan,
            History history,
            List<Violation> violations,
            Map<Fault.Kind, Integer> faults,
            Map<String, Integer> failoverLosses,
            List<String> lossDetails,
            long settleMs,
            long elapsedMs,
            String redisVersion,
            Path kept) {}
}
