package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/** {@link Retry} on a fake clock: which failures are tried again, and how often. */
final class RetryTest {
    private final AtomicLong now = new AtomicLong();

    @Test
    void connectionError_isTriedUpToThreeMoreTimes() {
        AtomicInteger calls = new AtomicInteger();
        Retry retry = new Retry(false, now::get);

        assertThatThrownBy(() -> retry.call(() -> {
                    calls.incrementAndGet();
                    throw new JedisConnectionException("dead pooled connection " + calls.get());
                }))
                .isInstanceOf(JedisConnectionException.class)
                .hasMessage("dead pooled connection 1")
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(3));
        assertThat(calls).hasValue(4);
    }

    @Test
    void connectionError_thenSuccess_returnsTheResult() {
        AtomicInteger calls = new AtomicInteger();

        String result = new Retry(true, now::get).call(() -> {
            if (calls.incrementAndGet() < 3) {
                throw new JedisConnectionException("closed by the server");
            }
            return "ok";
        });

        assertThat(result).isEqualTo("ok");
        assertThat(calls).hasValue(3);
    }

    @Test
    void quickOnly_aSlowConnectionError_isNotRetried() {
        AtomicInteger calls = new AtomicInteger();
        Retry retry = new Retry(true, now::get);

        assertThatThrownBy(() -> retry.call(() -> {
                    calls.incrementAndGet();
                    now.addAndGet(Retry.QUICK_FAILURE_NANOS + 1); // a read timeout
                    throw new JedisConnectionException("Read timed out");
                }))
                .isInstanceOf(JedisConnectionException.class);
        assertThat(calls).hasValue(1);
    }

    @Test
    void everyConnectionError_aSlowOneIsRetriedToo() {
        AtomicInteger calls = new AtomicInteger();
        Retry retry = new Retry(false, now::get);

        assertThatThrownBy(() -> retry.call(() -> {
                    calls.incrementAndGet();
                    now.addAndGet(Retry.QUICK_FAILURE_NANOS + 1);
                    throw new JedisConnectionException("Read timed out");
                }))
                .isInstanceOf(JedisConnectionException.class);
        assertThat(calls).hasValue(4);
    }

    @Test
    void loading_isWaitedOut() {
        AtomicInteger calls = new AtomicInteger();

        long result = Retry.QUICK_CONNECTION_ERRORS.call(() -> {
            if (calls.incrementAndGet() <= 5) {
                throw new JedisDataException("LOADING Redis is loading the dataset in memory");
            }
            return 7L;
        });

        assertThat(result).isEqualTo(7L);
        assertThat(calls).hasValue(6);
    }

    @Test
    void loading_givesUpAfterItsBudget() {
        AtomicInteger calls = new AtomicInteger();
        Retry retry = new Retry(true, now::get);
        long step = TimeUnit.MILLISECONDS.toNanos(Retry.LOADING_BUDGET_MS) / 4;

        assertThatThrownBy(() -> retry.call(() -> {
                    calls.incrementAndGet();
                    now.addAndGet(step);
                    throw new JedisDataException("LOADING Redis is loading the dataset in memory");
                }))
                .isInstanceOf(JedisDataException.class)
                .hasMessageStartingWith("LOADING");
        assertThat(calls).hasValueBetween(4, 6);
    }

    @Test
    void otherErrorReplies_areNotRetried() {
        AtomicInteger calls = new AtomicInteger();

        assertThatThrownBy(() -> Retry.CONNECTION_ERRORS.call(() -> {
                    calls.incrementAndGet();
                    throw new JedisDataException("WRONGTYPE Operation against a key holding the wrong kind of value");
                }))
                .isInstanceOf(JedisDataException.class)
                .hasMessageStartingWith("WRONGTYPE");
        assertThat(calls).hasValue(1);
    }

    @Test
    void interrupted_stopsRetrying_andKeepsTheFlag() {
        AtomicInteger calls = new AtomicInteger();
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> Retry.CONNECTION_ERRORS.call(() -> {
                        calls.incrementAndGet();
                        throw new JedisConnectionException("refused");
                    }))
                    .isInstanceOf(JedisConnectionException.class);
            assertThat(calls).hasValue(2); // the first pause is 0 ms; the second (20 ms) is interrupted
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void isLoading_recognisesTheReply() {
        assertThat(Retry.isLoading(new JedisDataException("LOADING Redis is loading the dataset in memory")))
                .isTrue();
        assertThat(Retry.isLoading(new JedisDataException("ERR unknown command")))
                .isFalse();
        assertThat(Retry.isLoading(new JedisConnectionException("LOADING"))).isFalse();
    }
}
