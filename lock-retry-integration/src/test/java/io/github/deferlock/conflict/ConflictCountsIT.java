package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * The conflicts view's counters (docs/ops.md, "Conflict stats") against real contention: a lock held by a
 * second {@code RedisLocks} on its own connection, and THROW, SLEEP_RETRY and DEFER conflicts caused by the
 * first; the per-minute buckets must hold exactly the conflicts caused.
 */
@ExtendWith(RedisExtension.class)
final class ConflictCountsIT {
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private RedisLocks mine;
    private RedisLocks other;

    @BeforeEach
    void setUp(RedisServer server, RedisClient redis) {
        mine = RedisLocks.builder(redis).keyPrefix("c:").build();
        RedisClient otherClient = server.newClient();
        other = RedisLocks.builder(otherClient).keyPrefix("c:").build();
        toClose.add(mine);
        toClose.add(other);
        toClose.add(otherClient);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    /** The conflicts counted for {@code name} under {@code strategy} in this minute's and the last minute's bucket. */
    private static long counted(RedisClient redis, String strategy, String name) {
        long minute = System.currentTimeMillis() / 60_000;
        long sum = 0;
        for (long m = minute - 2; m <= minute; m++) {
            Double score = redis.zscore("c:conflicts:" + strategy + ":" + m, name);
            sum += score == null ? 0 : score.longValue();
        }
        return sum;
    }

    @Test
    void conflicts_ofEveryStrategy_areCountedExactlyPerName(RedisClient redis) {
        LockLease held = other.get("order:1").acquire(Duration.ZERO, Duration.ofSeconds(60));
        toClose.add(held);
        LockRunner runner = LockRunner.builder(mine)
                .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(5)), 3, Duration.ofSeconds(5)))
                .build();
        for (int i = 0; i < 7; i++) {
            assertThatThrownBy(() -> runner.withLock("order:1", OnConflict.THROW, () -> {}))
                    .isInstanceOf(LockConflictException.class);
        }
        for (int i = 0; i < 2; i++) { // three tries each, three conflicts each
            assertThatThrownBy(() -> runner.withLock("order:1", OnConflict.SLEEP_RETRY, () -> {}))
                    .isInstanceOf(LockConflictException.class);
        }
        Deferrals deferrals = Deferrals.builder(redis, "deferred").build(); // no worker: nothing runs again
        toClose.add(deferrals);
        ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, mine)
                .key(m -> "order:" + m.order())
                .messageId(Msg::id)
                .handler(m -> {})
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
        for (int i = 0; i < 5; i++) {
            assertThat(handler.handle(new Msg("m" + i, "1"))).isEqualTo(Outcome.DEFERRED);
        }
        runner.withLock("order:free", OnConflict.THROW, () -> {});

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(counted(redis, "THROW", "order:1")).isEqualTo(7);
            assertThat(counted(redis, "SLEEP_RETRY", "order:1")).isEqualTo(6);
            assertThat(counted(redis, "DEFER", "order:1")).isEqualTo(5);
        });
        assertThat(counted(redis, "THROW", "order:free")).isZero();
        long minute = System.currentTimeMillis() / 60_000;
        long ttl = redis.ttl("c:conflicts:THROW:" + minute);
        if (ttl < 0) { // the minute turned since the last conflict: the earlier bucket holds them
            ttl = redis.ttl("c:conflicts:THROW:" + (minute - 1));
        }
        assertThat(ttl).isBetween(1L, (long) ContentionRecorder.BUCKET_LIFE_SECONDS);
    }

    @Test
    void conflictStatsOff_sendsNothing(RedisClient redis) {
        LockLease held = other.get("order:2").acquire(Duration.ZERO, Duration.ofSeconds(60));
        toClose.add(held);
        LockRunner quiet = LockRunner.builder(mine).conflictStats(false).build();
        LockRunner counting = LockRunner.builder(mine).build();
        assertThatThrownBy(() -> quiet.withLock("order:2", OnConflict.THROW, () -> {}))
                .isInstanceOf(LockConflictException.class);
        assertThatThrownBy(() -> counting.withLock("order:2", OnConflict.THROW, () -> {}))
                .isInstanceOf(LockConflictException.class);
        // the counting runner's conflict arrives; had the quiet one sent its own, the count would be 2
        await().atMost(Duration.ofSeconds(10)).until(() -> counted(redis, "THROW", "order:2") >= 1);
        assertThat(counted(redis, "THROW", "order:2")).isEqualTo(1);
    }

    @Test
    void bucket_isTrimmedToItsCap(RedisClient redis) {
        ContentionRecorder recorder = new ContentionRecorder(true, () -> 60_000L * 7);
        for (int i = 0; i < ContentionRecorder.CAP + 150; i++) {
            recorder.record(mine.get("k" + i), "k" + i, OnConflict.THROW);
        }
        // among names of equal counts the trim drops the first by name: "zz-hot" is last, so it is kept
        recorder.record(mine.get("zz-hot"), "zz-hot", OnConflict.THROW);
        recorder.record(mine.get("zz-hot"), "zz-hot", OnConflict.THROW);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(redis.zcard("c:conflicts:THROW:7")).isEqualTo(ContentionRecorder.CAP);
            assertThat(redis.zscore("c:conflicts:THROW:7", "zz-hot")).isEqualTo(2.0);
        });
    }

    @Test
    void conflictsRecordedWhileFlushesRun_areNeverLost(RedisClient redis) throws Exception {
        long before = scriptCalls(redis);
        ContentionRecorder recorder = new ContentionRecorder(true, () -> 60_000L * 9);
        int threads = 4;
        int each = 5_000;
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    recorder.record(mine.get("busy"), "busy", OnConflict.THROW);
                }
            });
            thread.start();
            started.add(thread);
        }
        for (Thread t : started) {
            t.join();
        }
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() ->
                        assertThat(redis.zscore("c:conflicts:THROW:9", "busy")).isEqualTo((double) threads * each));
        // conflicts that arrive while a flush runs share the next one: far fewer script calls than conflicts
        long calls = scriptCalls(redis) - before;
        assertThat(calls).isBetween(1L, (long) threads * each / 10);
    }

    private static long scriptCalls(RedisClient redis) {
        long calls = 0;
        for (String line : redis.info("commandstats").split("\\r?\\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                String n = line.substring(line.indexOf("calls=") + 6);
                calls += Long.parseLong(n.substring(0, n.indexOf(',')));
            }
        }
        return calls;
    }
}
