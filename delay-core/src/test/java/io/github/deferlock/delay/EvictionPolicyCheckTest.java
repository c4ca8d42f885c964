package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The start-time judgement of the server's eviction policy, without Redis (EvictionPolicyIT reads a real one). */
final class EvictionPolicyCheckTest {

    @Test
    void check_allkeysNotAllowed_refusesNamingThePolicyAndTheFix() {
        assertThatThrownBy(() -> EvictionPolicyCheck.check("q", Optional.of("allkeys-lru"), false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("queue 'q'")
                .hasMessageContaining("allkeys-lru")
                .hasMessageContaining("noeviction")
                .hasMessageContaining("allowEvictionPolicy(true)");
    }

    @Test
    void check_allkeysAllowed_starts() {
        assertThatCode(() -> EvictionPolicyCheck.check("q", Optional.of("allkeys-lfu"), true))
                .doesNotThrowAnyException();
    }

    @Test
    void check_noevictionVolatileOrUnknown_starts() {
        for (String policy : new String[] {"noeviction", "volatile-lru", "volatile-ttl"}) {
            assertThatCode(() -> EvictionPolicyCheck.check("q", Optional.of(policy), false))
                    .doesNotThrowAnyException();
        }
        assertThatCode(() -> EvictionPolicyCheck.check("q", Optional.empty(), false))
                .doesNotThrowAnyException();
    }
}
