package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

final class KeyStatesTest {
    private static final byte[] KEY = "lock:{k}".getBytes(StandardCharsets.UTF_8);

    @Test
    void aStateLives_whileItHasUsers_andIsSharedByThem() {
        KeyStates states = new KeyStates();
        KeyState first = states.enter("k", KEY);
        KeyState second = states.enter("k", KEY);
        assertThat(second).isSameAs(first);
        states.exit(first);
        assertThat(states.existing("k")).isSameAs(first);
        states.exit(second);
        assertThat(states.existing("k")).isNull();
        assertThat(states.enter("k", KEY)).isNotSameAs(first);
    }

    @Test
    void exit_ofAStaleState_leavesTheCurrentOneAlone() {
        KeyStates states = new KeyStates();
        KeyState old = states.enter("k", KEY);
        states.exit(old);
        KeyState current = states.enter("k", KEY);
        states.exit(old);
        assertThat(states.existing("k")).isSameAs(current);
    }
}
