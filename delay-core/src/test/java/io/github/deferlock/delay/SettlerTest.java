package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.Settler.Outcome;
import io.github.deferlock.delay.Settler.PendingAck;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** Settling, the worker's one retry layer: tries, pauses and give-ups on a fake pause, without Redis. */
final class SettlerTest {
    private final FakeCalls calls = new FakeCalls();
    private final List<Long> pauses = new ArrayList<>();
    private final List<String> givenBack = new ArrayList<>();
    private final QueueListener listener = new QueueListener() {
        @Override
        public void onGivenBack(String queue, String jobId) {
            givenBack.add(jobId);
        }
    };
    private final Settler<String> settler = new Settler<>(calls, listener, ms -> pauses.add(ms));

    @Test
    void settle_redisFailsTwice_thirdTrySucceeds() {
        calls.failures.add(new DelayQueueException("down"));
        calls.failures.add(new JedisConnectionException("reset"));
        assertThat(settler.nack(FakeCalls.job("a", 1), "boom")).isEqualTo(Outcome.DONE);
        assertThat(calls.calls("nack")).hasSize(3);
        assertThat(pauses).containsExactly(100L, 200L);
    }

    @Test
    void settle_failsEveryTry_givenUpAfterThree() {
        for (int i = 0; i < 5; i++) {
            calls.failures.add(new DelayQueueException("down"));
        }
        assertThat(settler.ack(FakeCalls.job("a", 1))).isEqualTo(Outcome.FAILED);
        assertThat(calls.calls("ack")).hasSize(Settler.TRIES);
    }

    @Test
    void settle_aBugNotARedisFailure_notRetried() {
        calls.failures.add(new IllegalArgumentException("bad"));
        assertThat(settler.ack(FakeCalls.job("a", 1))).isEqualTo(Outcome.FAILED);
        assertThat(calls.calls("ack")).hasSize(1);
        assertThat(pauses).isEmpty();
    }

    @Test
    void settle_interruptedPause_noMoreTries() {
        Settler<String> interrupted = new Settler<>(calls, listener, ms -> false);
        calls.failures.add(new DelayQueueException("down"));
        assertThat(interrupted.ack(FakeCalls.job("a", 1))).isEqualTo(Outcome.FAILED);
        assertThat(calls.calls("ack")).hasSize(1);
    }

    @Test
    void settle_staleReceipt_refusedOnceNotRetried() {
        calls.stale.add("a");
        assertThat(settler.nack(FakeCalls.job("a", 1), "boom")).isEqualTo(Outcome.REFUSED);
        assertThat(calls.calls("nack")).hasSize(1);
    }

    @Test
    void giveBack_toldToTheListenerOnlyWhenApplied() {
        calls.stale.add("b");
        settler.giveBack(FakeCalls.job("a", 1), "return on close");
        settler.giveBack(FakeCalls.job("b", 1), "return on close");
        assertThat(givenBack).containsExactly("a");
    }

    @Test
    void sendAcks_chunksOfMaxAcks_failedChunkRetried() {
        List<PendingAck<String>> pending = new ArrayList<>();
        for (int i = 0; i < DelayQueue.MAX_ACKS + 3; i++) {
            pending.add(new PendingAck<>(FakeCalls.job("j" + i, 1), 0));
        }
        calls.failures.add(new DelayQueueException("down"));
        settler.sendAcks(pending);
        List<FakeCalls.Call> sent = calls.calls("ackAll");
        assertThat(sent)
                .extracting(c -> c.jobIds().size())
                .containsExactly(DelayQueue.MAX_ACKS, DelayQueue.MAX_ACKS, 3);
        assertThat(pauses).containsExactly(100L);
        assertThat(pending).allMatch(a -> a.job.isSettled());
    }

    @Test
    void tryAgain_threeTriesInAll() {
        RuntimeException e = new DelayQueueException("down");
        assertThat(Settler.tryAgain(e, 1)).isTrue();
        assertThat(Settler.tryAgain(e, 2)).isTrue();
        assertThat(Settler.tryAgain(e, 3)).isFalse();
    }
}
