package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

final class PollBackoffTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void next_doublesFrom10msUpTo200ms() {
        PollBackoff b = new PollBackoff();
        long[] pauses = new long[9];
        for (int i = 0; i < pauses.length; i++) {
            pauses[i] = b.next(Long.MAX_VALUE, -1);
        }
        assertThat(pauses)
                .containsExactly(10 * MS, 20 * MS, 40 * MS, 80 * MS, 160 * MS, 200 * MS, 200 * MS, 200 * MS, 200 * MS);
    }

    @Test
    void next_neverPastTheWaitLeftNorPastTheHoldersTtl() {
        PollBackoff b = new PollBackoff();
        assertThat(b.next(3 * MS, -1)).isEqualTo(3 * MS);
        assertThat(b.next(Long.MAX_VALUE, 4)).isEqualTo(5 * MS); // ttl + 1 ms: the key is gone by then
        assertThat(b.next(Long.MAX_VALUE, 0)).isEqualTo(MS);
        assertThat(b.next(Long.MAX_VALUE, -1)).isEqualTo(80 * MS); // the backoff moved on meanwhile
    }
}
