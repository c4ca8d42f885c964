package io.github.deferlock.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The commit rule without a broker: the safe offset never passes a record that is not done. */
final class OffsetTrackerTest {

    @Test
    void beforeTheFirstRecord_nothingIsSafe() {
        OffsetTracker t = new OffsetTracker();
        assertThat(t.safe()).isEqualTo(-1);
        assertThat(t.toCommit()).isEqualTo(-1);
    }

    @Test
    void aRecordNotDone_holdsTheSafeOffset_whateverFinishesAfterIt() {
        OffsetTracker t = new OffsetTracker();
        for (long o = 10; o < 15; o++) {
            t.started(o);
        }
        t.done(10);
        t.done(12);
        t.done(13);
        t.done(14);
        assertThat(t.safe()).as("11 is not done").isEqualTo(11);
        t.done(11);
        assertThat(t.safe()).as("one past the highest started").isEqualTo(15);
        assertThat(t.pending()).isZero();
    }

    @Test
    void gapsInOffsets_doNotHoldItBack() {
        OffsetTracker t = new OffsetTracker();
        t.started(3);
        t.started(7); // 4..6 are transaction markers or compacted away
        t.done(3);
        assertThat(t.safe()).isEqualTo(7);
        t.done(7);
        assertThat(t.safe()).isEqualTo(8);
    }

    @Test
    void toCommit_isNewOnlyPastTheLastConfirmedCommit() {
        OffsetTracker t = new OffsetTracker();
        t.started(0);
        t.done(0);
        assertThat(t.toCommit()).isEqualTo(1);
        t.committed(1);
        assertThat(t.toCommit()).isEqualTo(-1);
        assertThat(t.lastCommitted()).isEqualTo(1);
        t.started(1);
        assertThat(t.toCommit()).as("1 is not done").isEqualTo(-1);
        t.done(1);
        assertThat(t.toCommit()).isEqualTo(2);
    }

    @Test
    void aRewoundOffset_holdsTheSafeOffsetUntilDone() {
        OffsetTracker t = new OffsetTracker();
        t.started(5);
        t.done(5);
        t.started(2); // the client reset its position
        assertThat(t.safe()).isEqualTo(2);
        t.done(2);
        assertThat(t.safe()).isEqualTo(6);
    }
}
