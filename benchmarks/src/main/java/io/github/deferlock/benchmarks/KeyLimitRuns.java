package io.github.deferlock.benchmarks;

import io.github.deferlock.lock.DistributedPermits;
import io.github.deferlock.lock.PermitLease;
import io.github.deferlock.lock.RateLimit;
import io.github.deferlock.lock.RateLimiter;
import io.github.deferlock.lock.RedisLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The {@code limits.permits.*} and {@code limits.rate.*} metrics of issue 32: deferlock's {@link
 * DistributedPermits} against Redisson's {@code RPermitExpirableSemaphore}, and deferlock's {@link RateLimiter}
 * against Redisson's {@code RRateLimiter}, each measured the same way in the same round.
 */
final class KeyLimitRuns {

    /** Threads of both workloads. */
    static final int THREADS = 8;
    /** Permits per name of {@code limits.permits.t8}: half the threads hold one at a time. */
    static final int PERMITS = 4;
    /** The lease of the fixed-lease sides (deferlock-lease, Redisson). */
    static final Duration LEASE = Duration.ofSeconds(30);
    /** The rate of {@code limits.rate.*}: starts per second. */
    static final int RATE = 200;
    /** What a refused {@code tryAcquire()} waits before asking again, on every side. */
    static final Duration POLL = Duration.ofMillis(1);
    /** The window the limit applies to, and the sliding window the starts are counted in. */
    static final Duration WINDOW = Duration.ofSeconds(1);

    /** deferlock's permits with a fixed 30 s lease (not renewed): the match of Redisson's expiring permits. */
    static final String DEFERLOCK_LEASE = "deferlock-lease";
    /** deferlock's rate limiter with a burst of 1, so its bound is the rate itself, as Redisson's is. */
    static final String DEFERLOCK_BURST1 = "deferlock-burst1";

    static final List<String> PERMIT_SIDES =
            List.of(Sides.DEFERLOCK, DEFERLOCK_LEASE, Sides.REDISSON, Sides.REDISSON_TUNED);
    static final List<String> RATE_SIDES = List.of(Sides.DEFERLOCK, DEFERLOCK_BURST1, Sides.REDISSON);

    private final Redis redis;
    private final Settings settings;
    private final Results results;

    KeyLimitRuns(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
    }

    /** One acquire+release cycle of one thread. */
    @FunctionalInterface
    interface PermitCycle {
        void run() throws InterruptedException;
    }

    /** {@code limits.permits.t8}: 8 threads, one name with 4 permits, acquire+release, no work in between. */
    void permits() {
        String id = "limits.permits.t8";
        Rounds.run(id, settings.rounds(), PERMIT_SIDES, (side, round) -> {
            String name = LockSide.freshKey("permits");
            try (PermitSide s = PermitSide.open(side, redis, name);
                    Jedis stats = redis.connection()) {
                AtomicLong count = new AtomicLong();
                long[] window = new long[2];
                Redis.Snapshot[] snaps = new Redis.Snapshot[2];
                LockRuns.runThreads(
                        THREADS,
                        settings.warmup(),
                        settings.measure(),
                        i -> s.cycle().run(),
                        count,
                        window,
                        () -> snaps[0] = Redis.snapshot(stats),
                        () -> snaps[1] = Redis.snapshot(stats));
                double rate = count.get() / ((window[1] - window[0]) / 1e9);
                results.add(id, side, rate);
                results.add(id + ".commands", side, snaps[1].commandsPer(snaps[0], count.get()));
                results.add(id + ".redisCpu", side, snaps[1].cpuMicrosPer(snaps[0], count.get()));
                Progress.figure(id, side + " r" + round, rate, "cycles/s");
            }
        });
        results.note(
                id,
                "method",
                THREADS + " threads of one JVM share one fresh name with " + PERMITS + " permits; each loops"
                        + " acquire + release with nothing in between (so half the threads wait at any time and"
                        + " every release has waiters to wake); " + settings.rounds()
                        + " round(s), side order shuffled each round; "
                        + settings.warmup().toMillis()
                        + " ms warm-up then " + settings.measure().toMillis() + " ms measured per side and round;"
                        + " commands and server CPU from INFO deltas over the measured window. deferlock:"
                        + " `permits(name, 4).acquire(30 s)` then `close()` (default lease, watchdog);"
                        + " deferlock-lease: `acquire(30 s, lease 30 s)` (fixed lease, no watchdog); Redisson:"
                        + " `trySetPermits(4)` once, then `acquire(30, SECONDS)` (a 30 s lease) and"
                        + " `release(permitId)`. Not the same work: deferlock's permits are FIFO across threads and"
                        + " processes (a permit freed while callers wait is kept for the oldest one, told on its"
                        + " process's channel, and the releasing thread's next acquire queues behind it: a pub/sub"
                        + " notice and a thread wake-up per cycle while the permit waits), Redisson's semaphore has no"
                        + " waiter queue (whoever asks first after a release takes the permit, usually the releasing"
                        + " thread); the commands are mostly the FIFO's (the waiter queue's entries read per acquire)");
    }

    /** A side of {@code limits.permits.t8}: one name with {@value #PERMITS} permits. */
    interface PermitSide extends AutoCloseable {

        PermitCycle cycle();

        @Override
        void close();

        static PermitSide open(String side, Redis redis, String name) {
            return switch (side) {
                case Sides.DEFERLOCK -> new DeferlockPermits(redis, name, false);
                case DEFERLOCK_LEASE -> new DeferlockPermits(redis, name, true);
                case Sides.REDISSON -> new RedissonPermits(redis.redisson(), name);
                case Sides.REDISSON_TUNED -> new RedissonPermits(redis.redissonTuned(), name);
                default -> throw new IllegalArgumentException("unknown permits side " + side);
            };
        }
    }

    /** deferlock's {@link DistributedPermits}, with its defaults or a fixed lease. */
    static final class DeferlockPermits implements PermitSide {
        private final RedisClient client;
        private final RedisLocks locks;
        private final DistributedPermits permits;
        private final boolean fixedLease;

        DeferlockPermits(Redis redis, String name, boolean fixedLease) {
            this.client = redis.jedis();
            this.locks = RedisLocks.builder(client).keyPrefix("lock:").build();
            this.permits = locks.permits(name, PERMITS);
            this.fixedLease = fixedLease;
        }

        @Override
        public PermitCycle cycle() {
            return () -> {
                PermitLease lease = fixedLease ? permits.acquire(LEASE, LEASE) : permits.acquire(LEASE);
                lease.close();
            };
        }

        @Override
        public void close() {
            locks.close();
            client.close();
        }
    }

    /** Redisson's {@code RPermitExpirableSemaphore}: {@code acquire(lease)} and {@code release(permitId)}. */
    static final class RedissonPermits implements PermitSide {
        private final RedissonClient redisson;
        private final RPermitExpirableSemaphore semaphore;

        RedissonPermits(RedissonClient redisson, String name) {
            this.redisson = redisson;
            this.semaphore = redisson.getPermitExpirableSemaphore("redisson:" + name);
            if (!semaphore.trySetPermits(PERMITS)) {
                throw new IllegalStateException("trySetPermits(" + PERMITS + ") refused on a fresh name " + name);
            }
        }

        @Override
        public PermitCycle cycle() {
            return () -> {
                String id = semaphore.acquire(LEASE.toMillis(), TimeUnit.MILLISECONDS);
                semaphore.release(id);
            };
        }

        @Override
        public void close() {
            redisson.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /** One call that may take a start: true when granted. */
    @FunctionalInterface
    interface RateCall {
        boolean tryAcquire();
    }

    /** A start as the caller saw it: the granting call was sent at {@code sent} and its reply came at {@code got}. */
    record Start(long sent, long got) {}

    /**
     * {@code limits.rate.*}: a limiter at {@value #RATE}/s polled by 8 threads; the starts it granted in the worst 1 s
     * window against its documented bound, and the sustained rate against the limit.
     */
    void rate() {
        // whole seconds, at least 3: the throughput counts whole windows after the first (a sliding-window limiter
        // such as Redisson's grants a window's permits in a clump as the window frees them)
        long seconds = Math.max(3, settings.measure().multipliedBy(3).toSeconds());
        Duration length = Duration.ofSeconds(seconds);
        Rounds.run("limits.rate.*", settings.rounds(), RATE_SIDES, (side, round) -> {
            String name = LockSide.freshKey("rate");
            RedisClient client = null;
            RedisLocks locks = null;
            RedissonClient redisson = null;
            RateCall call;
            int bound;
            try {
                switch (side) {
                    case Sides.DEFERLOCK, DEFERLOCK_BURST1 -> {
                        client = redis.jedis();
                        RateLimit limit = RateLimit.of(RATE, WINDOW);
                        if (side.equals(DEFERLOCK_BURST1)) {
                            limit = limit.withBurst(1);
                        }
                        // the documented bound: any window of the interval sees at most rate + burst - 1 starts
                        bound = limit.rate() + limit.burst() - 1;
                        locks = RedisLocks.builder(client).keyPrefix("lock:").build();
                        RateLimiter limiter = locks.rateLimiter(name, limit);
                        call = () -> limiter.tryAcquire().granted();
                    }
                    case Sides.REDISSON -> {
                        redisson = redis.redisson();
                        RRateLimiter limiter = redisson.getRateLimiter("redisson:" + name);
                        if (!limiter.trySetRate(RateType.OVERALL, RATE, WINDOW)) {
                            throw new IllegalStateException("trySetRate refused on a fresh name " + name);
                        }
                        // Redisson's sliding window: at most rate permits in any window of the interval
                        bound = RATE;
                        call = limiter::tryAcquire;
                    }
                    default -> throw new IllegalArgumentException("unknown rate side " + side);
                }
                Hammered h = hammer(call, length);
                List<Start> starts = h.starts();
                long from = h.from();
                long end = from + length.toNanos();
                double proven = worstProvenWindow(starts);
                double seen = worstSeenWindow(starts);
                long steadyFrom = from + WINDOW.toNanos();
                long steady = starts.stream()
                        .filter(s -> s.got() >= steadyFrom && s.got() < end)
                        .count();
                double perSecond = steady / ((end - steadyFrom) / 1e9);
                results.add("limits.rate.accuracy", side, proven / bound);
                results.add("limits.rate.throughput", side, perSecond / RATE);
                results.add("limits.rate.worstWindow", side, seen);
                Progress.line(
                        "%-36s %-22s worst window %d proven, %d seen (bound %d): %.3f; %.1f starts/s (%.3f of %d/s)",
                        "limits.rate.*",
                        side + " r" + round,
                        (long) proven,
                        (long) seen,
                        bound,
                        proven / bound,
                        perSecond,
                        perSecond / RATE,
                        RATE);
            } finally {
                if (locks != null) {
                    locks.close();
                }
                if (client != null) {
                    client.close();
                }
                if (redisson != null) {
                    redisson.shutdown(0, 2, TimeUnit.SECONDS);
                }
            }
        });
        String method = String.format(
                Locale.ROOT,
                "a fresh limiter of %d starts per 1 s on each side and round, polled by %d threads of one JVM for %d ms"
                        + " from its first call: each thread loops the single-call `tryAcquire()` and, when refused,"
                        + " sleeps %d ms and asks again (the same loop on every side; deferlock's waiting"
                        + " `tryAcquire(wait)` is not used, since Redisson's waiting acquire hides which call was"
                        + " granted). deferlock: `RateLimit.of(%d, 1 s)` (default burst %d, documented bound rate +"
                        + " burst − 1 = %d); deferlock-burst1: `.withBurst(1)` (bound %d); Redisson:"
                        + " `trySetRate(OVERALL, %d, 1 s)` and `tryAcquire()` (sliding window, bound %d); %d round(s),"
                        + " side order shuffled each round",
                RATE,
                THREADS,
                length.toMillis(),
                POLL.toMillis(),
                RATE,
                RateLimit.of(RATE, WINDOW).burst(),
                RATE + RateLimit.of(RATE, WINDOW).burst() - 1,
                RATE,
                RATE,
                RATE,
                settings.rounds());
        results.note("limits.rate.accuracy", "method", method);
        results.note(
                "limits.rate.accuracy",
                "window",
                "a start counts in a 1 s window only when its whole granting call, from send to reply, lies inside"
                        + " the window; so the count is what the server must have granted inside that window, and a"
                        + " figure above 1.0 is a proven excess, not client-side jitter. The windows start at every"
                        + " call's send time, the first call's included: the idle limiter's burst is in the data");
        results.note(
                "limits.rate.throughput",
                "method",
                "starts whose reply came between 1 s after the first call and the end of the run ÷ that time ÷ "
                        + RATE + "/s (the first second, with the idle limiter's burst, left out); same runs as"
                        + " limits.rate.accuracy");
        results.note(
                "limits.rate.worstWindow",
                "method",
                "the most starts whose reply came within one 1 s window (what callers see; client-side reply jitter"
                        + " included); same runs as limits.rate.accuracy");
    }

    /**
     * The granted starts of one run, sorted by send time.
     *
     * @param from when the threads made their first call (nanoTime)
     * @param starts the granted starts
     */
    record Hammered(long from, List<Start> starts) {}

    /** {@link #THREADS} threads poll {@code call} for {@code length} from the first call; the granted starts. */
    static Hammered hammer(RateCall call, Duration length) throws InterruptedException {
        List<List<Start>> perThread = new ArrayList<>();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        long from = System.nanoTime() + 50_000_000L;
        long to = from + length.toNanos();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            List<Start> mine = new ArrayList<>();
            perThread.add(mine);
            Thread t = new Thread(() -> {
                try {
                    LockRuns.sleepUntil(from);
                    long sent;
                    while ((sent = System.nanoTime()) < to) {
                        boolean granted = call.tryAcquire();
                        long got = System.nanoTime();
                        if (granted) {
                            mine.add(new Start(sent, got));
                        } else {
                            Thread.sleep(POLL.toMillis());
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            t.setDaemon(true);
            ts.add(t);
            t.start();
        }
        for (Thread t : ts) {
            t.join(length.toMillis() + 30_000);
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("a polling thread failed", errors.get(0));
        }
        List<Start> all = new ArrayList<>();
        perThread.forEach(all::addAll);
        all.sort(Comparator.comparingLong(Start::sent));
        return new Hammered(from, all);
    }

    /**
     * The most starts whose whole call (send to reply) lies inside one window of {@link #WINDOW}, over windows
     * starting at each call's send time. {@code starts} is sorted by send time.
     */
    static long worstProvenWindow(List<Start> starts) {
        long window = WINDOW.toNanos();
        long worst = 0;
        for (int i = 0; i < starts.size(); i++) {
            long t = starts.get(i).sent();
            long n = 0;
            for (int j = i; j < starts.size() && starts.get(j).sent() < t + window; j++) {
                if (starts.get(j).got() < t + window) {
                    n++;
                }
            }
            worst = Math.max(worst, n);
        }
        return worst;
    }

    /** The most starts whose reply came inside one window of {@link #WINDOW}. */
    static long worstSeenWindow(List<Start> starts) {
        long[] got = starts.stream().mapToLong(Start::got).sorted().toArray();
        long window = WINDOW.toNanos();
        long worst = 0;
        int j = 0;
        for (int i = 0; i < got.length; i++) {
            while (got[i] - got[j] >= window) {
                j++;
            }
            worst = Math.max(worst, i - j + 1);
        }
        return worst;
    }
}
