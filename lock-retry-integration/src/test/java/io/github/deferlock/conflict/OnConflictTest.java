package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

final class OnConflictTest {

    @Test
    void valuesNamesAndValueOf_workLikeAnEnum() {
        assertThat(OnConflict.values()).containsExactly(OnConflict.THROW, OnConflict.SLEEP_RETRY, OnConflict.DEFER);
        for (OnConflict s : OnConflict.values()) {
            assertThat(OnConflict.valueOf(s.name())).isSameAs(s);
            assertThat(s.toString()).isEqualTo(s.name());
            assertThat(OnConflict.values()[s.ordinal()]).isSameAs(s);
        }
        assertThatThrownBy(() -> OnConflict.valueOf("defer"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("DEFER");
        assertThatThrownBy(() -> OnConflict.valueOf(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void onlyTheBlockingStrategies_areBlocking() {
        assertThat(OnConflict.THROW).isInstanceOf(OnConflict.Blocking.class);
        assertThat(OnConflict.SLEEP_RETRY).isInstanceOf(OnConflict.Blocking.class);
        assertThat(OnConflict.DEFER).isInstanceOf(OnConflict.Deferring.class);
    }
}
