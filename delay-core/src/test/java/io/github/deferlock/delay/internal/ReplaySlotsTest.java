package io.github.deferlock.delay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

final class ReplaySlotsTest {

    @Test
    void callsOneAfterAnother_shareOneSlot_eachWithItsOwnCallId() {
        ReplaySlots slots = new ReplaySlots(new JobIds());
        String first = slots.lease();
        slots.done(first);
        String second = slots.lease();
        assertThat(ReplaySlots.slot(second)).isEqualTo(ReplaySlots.slot(first));
        assertThat(second).isNotEqualTo(first);
        assertThat(ReplaySlots.argument(60_000, second)).isNotEqualTo(ReplaySlots.argument(60_000, first));
    }

    @Test
    void callsAtOnce_getSlotsOfTheirOwn_aFailedCallsSlotIsNotReused() {
        ReplaySlots slots = new ReplaySlots(new JobIds());
        String a = slots.lease();
        String b = slots.lease();
        assertThat(ReplaySlots.slot(a)).isNotEqualTo(ReplaySlots.slot(b));
        slots.done(b); // a failed: not done, a resend of it may still come
        String c = slots.lease();
        assertThat(ReplaySlots.slot(c)).isEqualTo(ReplaySlots.slot(b)).isNotEqualTo(ReplaySlots.slot(a));
        assertThat(slots.free()).isZero();
    }

    @Test
    void argument_isTtlAndCallId_aTokenWithoutSlotIsItsOwnSlot() {
        String token = new ReplaySlots(new JobIds()).lease();
        String call = token.substring(token.indexOf('~') + 1);
        assertThat(new String(ReplaySlots.argument(5000, token), StandardCharsets.UTF_8))
                .isEqualTo("5000 " + call);
        assertThat(ReplaySlots.slot("t1")).isEqualTo("t1");
        assertThat(new String(ReplaySlots.argument(5000, "t1"), StandardCharsets.UTF_8))
                .isEqualTo("5000 t1");
    }
}
