package io.github.deferlock.soak;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisSentinelGroup;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * One client JVM of a schedule, started by {@link ScheduleRun} and killed or paused by it. Through the fault
 * proxy (standalone), the sentinels or the cluster it runs one lock holder per resource, one producer and one worker of the queue {@code soak}; it
 * records every acquisition, fenced write, enqueue, handler run and ack on the recorder redis-server, one
 * line per event, written before the next step so a SIGKILL loses at most the event in progress. Prints
 * {@code READY} once it runs.
 *
 * <p>Args: data address ({@code standalone:PORT}, {@code sentinel:HOST:PORT,...} with the sentinels, {@code
 * cluster:HOST:PORT,...} with the nodes), recorder port, client name, self-ack ({@code 1}/{@code 0}), lease ms,
 * visibility ms, replicas (0: every enqueue plain; n: every other enqueue waits for n replicas, {@code
 * waitForReplicas(n, 500 ms)}, and is recorded {@code ENQW} when they acknowledged).
 */
public final class SoakClient {

    /** The lock keys, each guarding the fenced resource of the same name. */
    static final String[] RESOURCES = {"r0", "r1"};

    /** The queue every client produces to and works on. */
    static final String QUEUE = "soak";

    private SoakClient() {}

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        String dataAddress = args[0];
        int recorderPort = Integer.parseInt(args[1]);
        String name = args[2];
        boolean selfAck = "1".equals(args[3]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
        Duration visibility = Duration.ofMillis(Long.parseLong(args[5]));
        int replicas = Integer.parseInt(args[6]);

        System.out.println("starting: data client");
        UnifiedJedis data = dataClient(dataAddress);
        System.out.println("starting: locks and queues");
        RedisClient recorderClient =
                RedisClient.builder().hostAndPort("127.0.0.1", recorderPort).build();
        Recorder recorder = new Recorder(recorderClient);
        // the client threads catch what the library documents (LockException, ...): anything else ending one is a
        // defect the checker must see, not a thread that silently stops working
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            e.printStackTrace();
            try {
                recorder.event(
                        "CRASH",
                        name,
                        t.getName().replace(' ', '_'),
                        e.getClass().getName(),
                        System.currentTimeMillis());
            } catch (RuntimeException unrecorded) {
                unrecorded.printStackTrace();
            }
        });
        RedisLocks locks = RedisLocks.builder(data).defaultLease(lease).build();
        DelayQueue<String> queue = DelayQueue.builder(data, QUEUE, String.class)
                .visibilityTimeout(visibility)
                .maxAttempts(50)
                .build();
        DelayQueue<String> replicatedQueue = replicas == 0
                ? null
                : DelayQueue.builder(data, QUEUE, String.class)
                        .visibilityTimeout(visibility)
                        .maxAttempts(50)
                        .waitForReplicas(replicas, Duration.ofMillis(500))
                        .build();
        System.out.println("starting: worker");
        DelayQueueWorker.builder(queue, job -> {
                    recorder.event("H", job.id(), job.receipt(), job.attempts(), System.currentTimeMillis(), name);
                    Thread.sleep(ThreadLocalRandom.current().nextLong(5, 30)); // far below the visibility timeout
                    recorder.event("R", job.id(), job.receipt(), System.currentTimeMillis());
                    if (selfAck) {
                        boolean ok = queue.ack(job);
                        recorder.event("A", job.id(), job.receipt(), ok ? 1 : 0, System.currentTimeMillis());
                    }
                })
                .concurrency(2)
                .build()
                .start();
        for (String resource : RESOURCES) {
            daemon(() -> holdLoop(recorder, locks.get(resource), resource, name), "holder-" + resource);
        }
        daemon(() -> produceLoop(recorder, queue, replicatedQueue, name), "producer");
        daemon(() -> exitWhenOrphaned(recorderClient), "orphan-check");
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join(); // the runner kills this JVM
    }

    private static UnifiedJedis dataClient(String address) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(32);
        pool.setMaxIdle(32);
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(1000)
                .socketTimeoutMillis(1000)
                .build();
        int colon = address.indexOf(':');
        String kind = address.substring(0, colon);
        String rest = address.substring(colon + 1);
        return switch (kind) {
            case "standalone" ->
                RedisClient.builder()
                        .hostAndPort(new HostAndPort("127.0.0.1", Integer.parseInt(rest)))
                        .clientConfig(config)
                        .poolConfig(pool)
                        .build();
            case "sentinel" ->
                RedisSentinelClient.builder()
                        .masterName(RedisSentinelGroup.MASTER_NAME)
                        .sentinels(hosts(rest))
                        .clientConfig(config)
                        .poolConfig(pool)
                        .build();
            case "cluster" ->
                RedisClusterClient.builder()
                        .nodes(hosts(rest))
                        .clientConfig(config)
                        .poolConfig(pool)
                        .maxAttempts(8)
                        .maxTotalRetriesDuration(Duration.ofSeconds(8))
                        .build();
            default -> throw new IllegalArgumentException("unknown data address " + address);
        };
    }

    private static Set<HostAndPort> hosts(String list) {
        Set<HostAndPort> out = new LinkedHashSet<>();
        for (String hp : list.split(",")) {
            out.add(HostAndPort.from(hp));
        }
        return out;
    }

    private static void daemon(Runnable body, String name) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    /** Acquires, writes a few times with the token (checking the hold before each write), releases. */
    private static void holdLoop(Recorder recorder, DistributedLock lock, String resource, String client) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        long holds = 0;
        while (running(recorder)) {
            long start = System.currentTimeMillis();
            Optional<LockLease> acquired;
            try {
                acquired = lock.tryAcquire(Duration.ofMillis(500));
            } catch (LockException e) {
                pause(50);
                continue;
            }
            if (acquired.isEmpty()) {
                continue;
            }
            LockLease lease = acquired.get();
            long token = lease.fencingToken();
            String hold = client + "-" + resource + "-" + (++holds);
            recorder.event("ACQ", resource, token, hold, start, System.currentTimeMillis());
            int writes = rnd.nextInt(2, 6);
            for (int i = 0; i < writes; i++) {
                long send = System.currentTimeMillis();
                boolean held = lease.isHeld();
                // A hold that knows it is lost still sends one write: the fence must reject it if a newer
                // holder wrote already.
                recorder.fencedWrite(resource, token, hold, send, held);
                if (!held) {
                    break;
                }
                pause(rnd.nextLong(20, 80));
            }
            String outcome;
            try {
                lease.release();
                outcome = "released";
            } catch (LockLostException e) {
                outcome = "lost";
            } catch (LockException e) {
                outcome = "error";
            }
            recorder.event("REL", resource, token, hold, System.currentTimeMillis(), outcome);
            pause(rnd.nextLong(0, 30));
        }
    }

    /**
     * Enqueues jobs with its own ids, due now or within 300 ms, about 40 per second; with {@code replicated}
     * every other one through it (waiting for the replicas).
     */
    private static void produceLoop(
            Recorder recorder, DelayQueue<String> queue, DelayQueue<String> replicated, String client) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        long n = 0;
        while (running(recorder)) {
            String id = client + "-j" + (++n);
            boolean waits = replicated != null && n % 2 == 0;
            try {
                (waits ? replicated : queue).enqueue(id, "payload of " + id, Duration.ofMillis(rnd.nextLong(0, 300)));
                recorder.event(waits ? "ENQW" : "ENQ", id, System.currentTimeMillis());
            } catch (RuntimeException e) {
                recorder.event("ENQ?", id);
            }
            pause(25);
        }
    }

    /** Exits once the recorder has been unreachable for 5 s: the runner is gone (it never stops it). */
    private static void exitWhenOrphaned(RedisClient recorder) {
        long lastSeen = System.nanoTime();
        while (true) {
            pause(500);
            try {
                recorder.ping();
                lastSeen = System.nanoTime();
            } catch (RuntimeException e) {
                if (System.nanoTime() - lastSeen > 5_000_000_000L) {
                    System.exit(3);
                }
            }
        }
    }

    private static boolean running(Recorder recorder) {
        return "run".equals(recorder.phase());
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
