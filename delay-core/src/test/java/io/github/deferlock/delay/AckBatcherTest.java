package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.Settler.PendingAck;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Ack batching on a fake clock, without Redis. */
final class AckBatcherTest {
    private static final long DELAY = 5_000_000L;
    private final AtomicLong now = new AtomicLong(-1_000);
    private final FakeCalls calls = new FakeCalls();
    private final Settler<String> settler = new Settler<>(calls, QueueListener.NONE, ms -> true);
    private final List<String> wakes = new ArrayList<>();
    private final AckBatcher<String> acks = new AckBatcher<>(
            now::get, DELAY, true, settler, (sendAt, first, full) -> wakes.add(sendAt + "/" + first + "/" + full));

    @Test
    void add_firstAck_wakerToldItsSendTime() {
        acks.add(FakeCalls.job("a", 1));
        now.addAndGet(1_000);
        acks.add(FakeCalls.job("b", 1));
        assertThat(wakes).containsExactly((-1_000 + DELAY) + "/true/false", (DELAY) + "/false/false");
        assertThat(acks.size()).isEqualTo(2);
        assertThat(acks.sendAt()).isEqualTo(-1_000 + DELAY);
        assertThat(calls.calls).isEmpty();
    }

    @Test
    void due_afterTheAckDelayOfTheOldest() {
        assertThat(acks.due(now.get())).isFalse();
        acks.add(FakeCalls.job("a", 1));
        assertThat(acks.due(now.get() + DELAY - 1)).isFalse();
        assertThat(acks.due(now.get() + DELAY)).isTrue();
    }

    @Test
    void due_fullBatch_atOnce() {
        for (int i = 0; i < DelayQueue.MAX_ACKS; i++) {
            acks.add(FakeCalls.job("j" + i, 1));
        }
        assertThat(acks.due(now.get())).isTrue();
        assertThat(wakes.get(wakes.size() - 1)).endsWith("/true");
        assertThat(acks.moreThanAClaimCarries()).isFalse();
        acks.add(FakeCalls.job("one more", 1));
        assertThat(acks.moreThanAClaimCarries()).isTrue();
    }

    @Test
    void moreThanAClaimCarries_withoutPiggyback_anyAck() {
        AckBatcher<String> alone = new AckBatcher<>(now::get, DELAY, false, settler, (s, f, full) -> {});
        alone.add(FakeCalls.job("a", 1));
        assertThat(alone.moreThanAClaimCarries()).isTrue();
    }

    @Test
    void drain_oldestFirstUpToMax() {
        acks.add(FakeCalls.job("a", 1));
        acks.add(FakeCalls.job("b", 1));
        acks.add(FakeCalls.job("c", 1));
        assertThat(acks.drain(2)).extracting(a -> a.job.id()).containsExactly("a", "b");
        assertThat(acks.drainAll()).extracting(a -> a.job.id()).containsExactly("c");
    }

    @Test
    void retryLater_triesLeftBackInFrontOthersGivenUp() {
        acks.add(FakeCalls.job("later", 1));
        PendingAck<String> fresh = new PendingAck<>(FakeCalls.job("fresh", 1), 0);
        PendingAck<String> tired = new PendingAck<>(FakeCalls.job("tired", 1), 0);
        tired.failures = Settler.TRIES - 1;
        acks.retryLater(List.of(fresh, tired), new DelayQueueException("down"));
        assertThat(acks.drainAll()).extracting(a -> a.job.id()).containsExactly("fresh", "later");
        assertThat(fresh.failures).isEqualTo(1);
    }

    @Test
    void close_returnsTheLastBatch_laterAcksSentAtOnce() {
        acks.add(FakeCalls.job("a", 1));
        assertThat(acks.close()).extracting(a -> a.job.id()).containsExactly("a");
        acks.add(FakeCalls.job("b", 1));
        assertThat(calls.calls("ack")).extracting(FakeCalls.Call::jobIds).containsExactly(List.of("b"));
        acks.retryLater(List.of(new PendingAck<>(FakeCalls.job("c", 1), 0)), new DelayQueueException("down"));
        assertThat(calls.calls("ackAll")).extracting(FakeCalls.Call::jobIds).containsExactly(List.of("c"));
        assertThat(acks.size()).isZero();
    }
}
