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
        assertThat(pauses).containsExactly(50L, 100L);
    }

    @Test
    void nackAndGiveBack_resentUnderTheTokenOfTheirFirstTry() {
        calls.failures.add(new JedisConnectionException("reply lost"));
        settler.nack(FakeCalls.job("a", 1), "boom");
        calls.failures.add(new JedisConnectionException("reply lost"));
        settler.giveBack(FakeCalls.job("b", 1), "return on close");
        calls.failures.add(new JedisConnectionException("reply lost"));
        settler.nack(FakeCalls.job("c", 1), "boom");

        assertThat(calls.calls("nack")).extracting(FakeCalls.Call::token).doesNotContainNull();
        assertThat(calls.calls("nack").get(0).token())
                .as("a resend is the same call, its replay record recognises it")
                .isEqualTo(calls.calls("nack").get(1).token());
        assertThat(calls.calls("nack").get(2).token())
                .as("another settlement is another call")
                .isNotEqualTo(calls.calls("nack").get(0).token());
        assertThat(calls.calls("giveBack").get(0).token())
                .isNotNull()
                .isEqualTo(calls.calls("giveBack").get(1).token());
    }

    @Test
    void settle_failsEveryTry_givenUpAfterItsBudget_aboutTenSecondsOfPauses() {
        for (int i = 0; i < Settler.TRIES + 5; i++) {
            calls.failures.add(new DelayQueueException("down"));
        }
        assertThat(settler.ack(FakeCalls.job("a", 1))).isEqualTo(Outcome.FAILED);
        assertThat(calls.calls("ack")).hasSize(Settler.TRIES);
        assertThat(pauses)
                .startsWith(50L, 100L, 200L, 400L, 800L, 1000L)
                .hasSize(Settler.TRIES - 1)
                .allMatch(ms -> ms <= Settler.MAX_PAUSE_MS);
        // as long as the queue's own retry waits out LOADING (a restarted Redis loading its data set)
        assertThat(pauses.stream().mapToLong(Long::longValue).sum()).isBetween(9_000L, 10_000L);
    }

    @Test
    void ack_everyTrySentUnderTheFirstTrysToken() {
        calls.failures.add(new DelayQueueException("down"));
        calls.failures.add(new DelayQueueException("down"));
        assertThat(settler.ack(FakeCalls.job("a", 1))).isEqualTo(Outcome.DONE);
        assertThat(calls.calls("ack"))
                .hasSize(3)
                .extracting(FakeCalls.Call::token)
                .containsOnly("t1");
        assertThat(settler.ack(FakeCalls.job("b", 1))).isEqualTo(Outcome.DONE);
        assertThat(calls.calls("ack").get(3).token())
                .as("another ack, another token")
                .isEqualTo("t2");
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
        assertThat(pauses).containsExactly(50L);
        assertThat(pending).allMatch(a -> a.job.isSettled());
        assertThat(sent.get(0).token())
                .as("the failed chunk is resent as the same call")
                .isEqualTo(sent.get(1).token());
        assertThat(sent.get(2).token()).isNotEqualTo(sent.get(0).token());
    }

    @Test
    void tokenFor_sameAcksResentKeepTheirToken_otherwiseAFreshOne() {
        List<PendingAck<String>> acks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            acks.add(new PendingAck<>(FakeCalls.job("j" + i, 1), 0));
        }
        String first = settler.tokenFor(acks);
        assertThat(settler.tokenFor(acks)).as("the same call resent").isEqualTo(first);
        assertThat(settler.tokenFor(acks.subList(0, 2)))
                .as("fewer acks: another call")
                .isNotEqualTo(first);
        List<PendingAck<String>> more = new ArrayList<>(acks.subList(0, 2));
        more.add(new PendingAck<>(FakeCalls.job("new", 1), 0));
        assertThat(settler.tokenFor(more)).as("other acks: another call").isNotEqualTo(first);
    }

    @Test
    void tryAgain_fourteenTriesInAll() {
        RuntimeException e = new DelayQueueException("down");
        assertThat(Settler.tryAgain(e, 1)).isTrue();
        assertThat(Settler.tryAgain(e, Settler.TRIES - 1)).isTrue();
        assertThat(Settler.tryAgain(e, Settler.TRIES)).isFalse();
        assertThat(Settler.tryAgain(new IllegalStateException("bug"), 1)).isFalse();
    }
}
