package io.github.deferlock.benchmarks;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.ConflictListener;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.streams.StreamConsumer;
import io.github.deferlock.streams.StreamProducer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import redis.clients.jedis.RedisClient;

/**
 * A client JVM of the endurance run ({@link Endurance}), driven over stdin:
 *
 * <ul>
 *   <li>{@code START k=v ...}: starts the steady load (see {@link Load}) and answers {@code READY};
 *   <li>{@code SAMPLE}: runs {@code System.gc()}, answers {@code SAMPLE k=v ...}: heap used after that GC, live
 *       threads, the client pool's active and idle connections, the p99 (ms) and count of lock acquisitions and of
 *       job starts since the previous sample, and running totals;
 *   <li>{@code STOP}: stops the load, closes everything, answers {@code STOPPED};
 *   <li>{@code EXIT}.
 * </ul>
 *
 * Arguments: the redis URI and this JVM's index. Anything else it prints starts with {@code FAILED}.
 */
public final class EnduranceWorker {

    static final String QUEUE = "endurance";
    static final String DEFERRALS = "endurance-deferrals";
    static final String STREAM = "endurance-stream";
    static final String GROUP = "endurance";
    static final String HANDLER = "endurance-stream";
    static final String PREFIX = "lock:";
    /** Handler threads of each JVM's queue worker, and what a job's handler does: sleep this long. */
    static final int QUEUE_CONCURRENCY = 4;

    static final Duration JOB_HANDLER = Duration.ofMillis(5);
    /** Handler threads of each JVM's stream consumer; a message's handler sleeps this long under its lock. */
    static final int STREAM_CONCURRENCY = 2;

    static final Duration MESSAGE_HANDLER = Duration.ofMillis(2);
    /** How long a lock thread holds a name, and waits at most for it. */
    static final Duration HOLD = Duration.ofMillis(2);

    static final Duration LOCK_WAIT = Duration.ofSeconds(5);
    /** The stream is trimmed to about this many entries by every add. */
    static final long STREAM_MAX_LEN = 1_000;

    private EnduranceWorker() {}

    static String hot(int i) {
        return "hot-" + i;
    }

    static String cold(long i, int coldNames) {
        return "cold-" + Math.floorMod(i, coldNames);
    }

    /** Runs one client JVM; see the class comment. */
    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        Redis redis = Redis.parse(args[0]);
        int index = Integer.parseInt(args[1]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Load load = null;
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            try {
                switch (f[0]) {
                    case "START" -> {
                        load = new Load(redis, index, parse(f));
                        out.println("READY");
                    }
                    case "SAMPLE" -> out.println("SAMPLE " + format(load.sample()));
                    case "STOP" -> {
                        if (load != null) {
                            load.close();
                            load = null;
                        }
                        out.println("STOPPED");
                    }
                    case "EXIT" -> {
                        out.flush();
                        System.exit(0);
                    }
                    default -> out.println("FAILED unknown command " + line);
                }
            } catch (Exception | AssertionError e) {
                e.printStackTrace();
                out.println("FAILED " + String.valueOf(e).replace('\n', ' '));
            }
            out.flush();
        }
        System.exit(0);
    }

    static Map<String, String> parse(String[] fields) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 1; i < fields.length; i++) {
            int eq = fields[i].indexOf('=');
            if (eq > 0) {
                m.put(fields[i].substring(0, eq), fields[i].substring(eq + 1));
            }
        }
        return m;
    }

    static String format(Map<String, ? extends Number> m) {
        StringBuilder sb = new StringBuilder();
        m.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ")
                .append(k)
                .append('=')
                .append(v instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : v));
        return sb.toString();
    }

    /**
     * One JVM's steady load, all on one {@link RedisClient} (pool of 32) and one {@link RedisLocks}:
     *
     * <ul>
     *   <li>{@code lockThreads} threads take a lock (watchdog lease, waiting up to {@link #LOCK_WAIT}), hold it
     *       {@link #HOLD}, release it and pause {@code lockPauseMs}; a {@code hotShare} of the names are one of
     *       {@code hotNames} hot names both JVMs share, the rest go round a pool of {@code coldNames} cold names;
     *   <li>a producer enqueues {@code queueRate} jobs/s (open loop) on the shared delay queue, which a {@link
     *       DelayQueueWorker} ({@link #QUEUE_CONCURRENCY} threads, handler {@link #JOB_HANDLER}) drains;
     *   <li>a {@link StreamProducer} adds {@code streamRate} messages/s to a stream (trimmed to ~{@link
     *       #STREAM_MAX_LEN}) consumed by a {@link StreamConsumer} of the shared group ({@link #STREAM_CONCURRENCY}
     *       threads) through a {@link ConflictAwareHandler} with {@link OnConflict#DEFER} and a message id: a
     *       {@code hotShare} of the messages are on the hot names the lock threads hold, so they conflict and are
     *       deferred; each JVM runs a 1-thread deferral worker.
     * </ul>
     */
    static final class Load {
        private final RedisClient client;
        private final RedisLocks locks;
        private final DelayQueueWorker<String> worker;
        private final Deferrals deferrals;
        private final StreamConsumer<EnduranceMessage> consumer;
        private final List<Thread> threads = new ArrayList<>();
        private final Recorder lockWaits = new Recorder(3);
        private final Recorder jobStarts = new Recorder(3);
        private final AtomicLong locksTaken = new AtomicLong();
        private final AtomicLong lockTimeouts = new AtomicLong();
        private final AtomicLong enqueued = new AtomicLong();
        private final AtomicLong started = new AtomicLong();
        private final AtomicLong added = new AtomicLong();
        private final AtomicLong handled = new AtomicLong();
        private final AtomicLong deferred = new AtomicLong();
        private final AtomicLong errors = new AtomicLong();
        private volatile boolean running = true;
        private Histogram lockInterval;
        private Histogram jobInterval;

        Load(Redis redis, int index, Map<String, String> p) {
            int lockThreads = Integer.parseInt(p.get("lockThreads"));
            long lockPauseMs = Long.parseLong(p.get("lockPauseMs"));
            double hotShare = Double.parseDouble(p.get("hotShare"));
            int hotNames = Integer.parseInt(p.get("hotNames"));
            int coldNames = Integer.parseInt(p.get("coldNames"));
            double queueRate = Double.parseDouble(p.get("queueRate"));
            double streamRate = Double.parseDouble(p.get("streamRate"));
            Duration doneTtl = Duration.ofMillis(Long.parseLong(p.get("doneTtlMs")));
            client = redis.jedis();
            locks = RedisLocks.builder(client).keyPrefix(PREFIX).build();
            DelayQueue<String> queue =
                    DelayQueue.builder(client, QUEUE, String.class).build();
            worker = DelayQueueWorker.builder(queue, job -> {
                        jobStarts.recordValue(Math.max(0, QueueSide.nowMicros() - Long.parseLong(job.payload())));
                        started.incrementAndGet();
                        Thread.sleep(JOB_HANDLER.toMillis());
                    })
                    .concurrency(QUEUE_CONCURRENCY)
                    .build()
                    .start();
            deferrals =
                    Deferrals.builder(client, DEFERRALS).doneMarkerTtl(doneTtl).build();
            ConflictAwareHandler<EnduranceMessage> handler = ConflictAwareHandler.builder(
                            HANDLER, EnduranceMessage.class, locks)
                    .key(EnduranceMessage::key)
                    .messageId(EnduranceMessage::id)
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .listener(new ConflictListener() {
                        @Override
                        public void onDeferred(String key, int n, Duration delay) {
                            deferred.incrementAndGet();
                        }
                    })
                    .handler(m -> {
                        Thread.sleep(MESSAGE_HANDLER.toMillis());
                        handled.incrementAndGet();
                    })
                    .build();
            deferrals.startWorker(1);
            consumer = StreamConsumer.builder(client, STREAM, GROUP, EnduranceMessage.class, handler)
                    .concurrency(STREAM_CONCURRENCY)
                    .consumerName("jvm-" + index)
                    .build()
                    .start();
            StreamProducer producer = StreamProducer.builder(client, STREAM)
                    .maxLen(STREAM_MAX_LEN)
                    .build();
            AtomicLong coldSeq = new AtomicLong((long) index * coldNames / 2);
            for (int t = 0; t < lockThreads; t++) {
                threads.add(thread("endurance-lock-" + t, () -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    String name = r.nextDouble() < hotShare
                            ? hot(r.nextInt(hotNames))
                            : cold(coldSeq.getAndIncrement(), coldNames);
                    long t0 = System.nanoTime();
                    LockLease lease;
                    try {
                        lease = locks.get(name).acquire(LOCK_WAIT);
                    } catch (LockConflictException e) {
                        lease = null;
                    }
                    lockWaits.recordValue((System.nanoTime() - t0) / 1000);
                    if (lease == null) {
                        lockTimeouts.incrementAndGet();
                    } else {
                        try {
                            locksTaken.incrementAndGet();
                            Thread.sleep(HOLD.toMillis());
                        } finally {
                            lease.close();
                        }
                    }
                    if (lockPauseMs > 0) {
                        Thread.sleep(lockPauseMs);
                    }
                }));
            }
            if (queueRate > 0) {
                threads.add(paced("endurance-enqueue", queueRate, () -> {
                    queue.enqueue(String.valueOf(QueueSide.nowMicros()));
                    enqueued.incrementAndGet();
                }));
            }
            AtomicLong messageSeq = new AtomicLong();
            if (streamRate > 0) {
                threads.add(paced("endurance-stream-add", streamRate, () -> {
                    long n = messageSeq.incrementAndGet();
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    String key = r.nextDouble() < hotShare ? hot(r.nextInt(hotNames)) : cold(n * 7, coldNames);
                    producer.add(new EnduranceMessage("jvm" + index + "-" + n, key, QueueSide.nowMicros()));
                    added.incrementAndGet();
                }));
            }
            threads.forEach(Thread::start);
        }

        @FunctionalInterface
        interface Step {
            void run() throws Exception;
        }

        private Thread thread(String name, Step step) {
            Thread t = new Thread(() -> {
                while (running) {
                    try {
                        step.run();
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        errors.incrementAndGet();
                        e.printStackTrace();
                    }
                }
            });
            t.setName(name);
            t.setDaemon(true);
            return t;
        }

        /** Runs {@code step} {@code rate} times a second on schedule (open loop; at most 1 s of catch-up). */
        private Thread paced(String name, double rate, Step step) {
            long interval = (long) (1e9 / rate);
            long[] next = {System.nanoTime()};
            return thread(name, () -> {
                next[0] += interval;
                long now = System.nanoTime();
                if (now - next[0] > 1_000_000_000L) {
                    next[0] = now;
                }
                LockRuns.sleepUntil(next[0]);
                step.run();
            });
        }

        Map<String, Number> sample() {
            System.gc();
            Map<String, Number> m = new LinkedHashMap<>();
            m.put(
                    "heapAfterGc",
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
            m.put("threads", ManagementFactory.getThreadMXBean().getThreadCount());
            m.put("poolActive", client.getPool().getNumActive());
            m.put("poolIdle", client.getPool().getNumIdle());
            lockInterval = lockWaits.getIntervalHistogram(lockInterval);
            jobInterval = jobStarts.getIntervalHistogram(jobInterval);
            m.put("lockP99Ms", lockInterval.getValueAtPercentile(99) / 1000.0);
            m.put("lockCount", lockInterval.getTotalCount());
            m.put("jobP99Ms", jobInterval.getValueAtPercentile(99) / 1000.0);
            m.put("jobCount", jobInterval.getTotalCount());
            m.put("locksTaken", locksTaken.get());
            m.put("lockTimeouts", lockTimeouts.get());
            m.put("enqueued", enqueued.get());
            m.put("started", started.get());
            m.put("added", added.get());
            m.put("handled", handled.get());
            m.put("deferred", deferred.get());
            m.put("errors", errors.get());
            return m;
        }

        void close() throws InterruptedException {
            running = false;
            for (Thread t : threads) {
                t.interrupt();
                t.join(10_000);
            }
            consumer.close();
            worker.close();
            deferrals.close();
            locks.close();
            client.close();
        }
    }
}
