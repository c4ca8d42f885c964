package io.github.deferlock.dashboard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.dashboard.internal.RateSampler.Counts;
import io.github.deferlock.dashboard.internal.RateSampler.Sample;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

final class RateSamplerTest {

    private static Counts counts(long enqueued, long handled) {
        return new Counts("q", 1500, enqueued, handled);
    }

    @Test
    void between_isTheCountersDifference_perSecond() {
        // 20 enqueued and 7 acked or dead-lettered in 2 s
        Sample s = RateSampler.between(counts(100, 40), counts(120, 47), 0, 2000);

        assertThat(s.enqueuedPerSec()).isEqualTo(10.0);
        assertThat(s.handledPerSec()).isEqualTo(3.5);
        assertThat(s.latenessMs()).isEqualTo(1500);
    }

    @Test
    void between_nothingHappened_isZero() {
        Sample s = RateSampler.between(counts(5, 5), counts(5, 5), 0, 1000);

        assertThat(s.enqueuedPerSec()).isZero();
        assertThat(s.handledPerSec()).isZero();
    }

    @Test
    void between_aCounterThatWentBack_isUnknown() {
        // Redis lost the stats key (restart without persistence, FLUSHALL): no rate rather than a wrong one
        assertThat(RateSampler.between(counts(400, 4), counts(3, 4), 0, 1000).enqueuedPerSec())
                .isNull();
        assertThat(RateSampler.between(counts(400, 40), counts(400, 3), 0, 1000).handledPerSec())
                .isNull();
    }

    @Test
    void record_keepsTheHistoryPerQueue_andForgetsVanishedQueues() {
        AtomicLong now = new AtomicLong(0);
        RateSampler sampler = new RateSampler(Duration.ofSeconds(10), Duration.ofSeconds(2), now::get);
        for (int i = 0; i <= 7; i++) {
            now.set(i * 2000L);
            sampler.record(List.of(new Counts("a", 0, i * 10, i * 4), new Counts("b", 0, 0, 0)));
        }

        assertThat(sampler.history("a")).hasSize(5).allSatisfy(s -> {
            assertThat(s.enqueuedPerSec()).isEqualTo(5.0);
            assertThat(s.handledPerSec()).isEqualTo(2.0);
        });
        assertThat(sampler.latest("a").t()).isEqualTo(14_000);
        assertThat(sampler.history("b")).hasSize(5);

        sampler.record(List.of(new Counts("a", 0, 80, 32)));

        assertThat(sampler.history("b")).isEmpty();
        assertThat(sampler.latest("b")).isNull();
    }

    @Test
    void record_firstReading_hasNoRate() {
        RateSampler sampler = new RateSampler(Duration.ofMinutes(1), Duration.ofSeconds(1), () -> 5);

        sampler.record(List.of(new Counts("a", 700, 3, 0)));

        assertThat(sampler.latest("a")).isEqualTo(new Sample(5, null, null, 700));
    }
}
