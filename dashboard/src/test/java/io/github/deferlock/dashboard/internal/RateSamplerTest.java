package io.github.deferlock.dashboard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.dashboard.internal.RateSampler.Counts;
import io.github.deferlock.dashboard.internal.RateSampler.Sample;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

final class RateSamplerTest {

    private static Counts counts(long waiting, long inFlight, long dead, long sequence) {
        return new Counts("q", waiting, inFlight, dead, 1500, sequence);
    }

    @Test
    void between_enqueuesOnly_areAllEnqueued() {
        // 20 enqueued in 2 s, nothing claimed: the sequence and the waiting set both grow by 20
        Sample s = RateSampler.between(counts(0, 0, 0, 100), counts(20, 0, 0, 120), 0, 2000);

        assertThat(s.enqueuedPerSec()).isEqualTo(10.0);
        assertThat(s.handledPerSec()).isEqualTo(0.0);
        assertThat(s.latenessMs()).isEqualTo(1500);
    }

    @Test
    void between_claimsAndAcks_areHandled() {
        // 10 enqueued and 30 claimed (sequence +40, waiting -20); 5 still in flight at the end: 25 handled in 5 s
        Sample s = RateSampler.between(counts(50, 0, 0, 0), counts(30, 5, 0, 40), 0, 5000);

        assertThat(s.enqueuedPerSec()).isEqualTo(2.0);
        assertThat(s.handledPerSec()).isEqualTo(5.0);
    }

    @Test
    void between_failuresToTheDeadLetters_countAsHandled() {
        // 4 claimed, all failed to the dead letters
        Sample s = RateSampler.between(counts(4, 0, 0, 4), counts(0, 0, 4, 8), 0, 1000);

        assertThat(s.enqueuedPerSec()).isZero();
        assertThat(s.handledPerSec()).isEqualTo(4.0);
    }

    @Test
    void between_aSequenceThatWentBack_isUnknown() {
        // Redis lost the counter (restart without persistence, FLUSHALL): no rate rather than a wrong one
        Sample s = RateSampler.between(counts(4, 0, 0, 400), counts(4, 0, 0, 3), 0, 1000);

        assertThat(s.enqueuedPerSec()).isNull();
        assertThat(s.handledPerSec()).isNull();
    }

    @Test
    void record_keepsTheHistoryPerQueue_andForgetsVanishedQueues() {
        AtomicLong now = new AtomicLong(0);
        RateSampler sampler = new RateSampler(Duration.ofSeconds(10), Duration.ofSeconds(2), now::get);
        for (int i = 0; i <= 7; i++) {
            now.set(i * 2000L);
            sampler.record(List.of(new Counts("a", i * 10, 0, 0, 0, i * 10), new Counts("b", 0, 0, 0, 0, 0)));
        }

        assertThat(sampler.history("a")).hasSize(5).allSatisfy(s -> assertThat(s.enqueuedPerSec())
                .isEqualTo(5.0));
        assertThat(sampler.latest("a").t()).isEqualTo(14_000);
        assertThat(sampler.history("b")).hasSize(5);

        sampler.record(List.of(new Counts("a", 80, 0, 0, 0, 80)));

        assertThat(sampler.history("b")).isEmpty();
        assertThat(sampler.latest("b")).isNull();
    }

    @Test
    void record_firstReading_hasNoRate() {
        RateSampler sampler = new RateSampler(Duration.ofMinutes(1), Duration.ofSeconds(1), () -> 5);

        sampler.record(List.of(new Counts("a", 3, 0, 0, 700, 3)));

        assertThat(sampler.latest("a")).isEqualTo(new Sample(5, null, null, 700));
    }
}
