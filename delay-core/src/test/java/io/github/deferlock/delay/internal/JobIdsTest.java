package io.github.deferlock.delay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

final class JobIdsTest {

    @Test
    void next_gives16CharactersOfBase64url_neverTheSameTwice() {
        JobIds ids = new JobIds();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            String id = ids.next();
            assertThat(id).hasSize(16).matches("[A-Za-z0-9_-]{16}");
            assertThat(seen.add(id)).as("duplicate id %s after %d", id, i).isTrue();
        }
    }

    @Test
    void twoInstances_drawDifferentPrefixes() {
        assertThat(new JobIds().next().substring(0, 10))
                .isNotEqualTo(new JobIds().next().substring(0, 10));
    }

    @Test
    void encode_putsThePrefixFirstAndTheLow32BitsOfTheCounterLast() {
        assertThat(JobIds.encode(0, 0)).isEqualTo("AAAAAAAAAAAAAAAA");
        assertThat(JobIds.encode(0, 1)).isEqualTo("AAAAAAAAAAAAAAAB");
        assertThat(JobIds.encode(0, 1L << 32)).isEqualTo(JobIds.encode(0, 0)); // only the low 32 bits
        assertThat(JobIds.encode(-1L, 0)).startsWith("__________");
    }

    @Test
    void next_whenTheCounterWraps_changesThePrefix() {
        // a random source whose first int starts the counter two steps before it wraps
        RandomGenerator random = new RandomGenerator() {
            private long longs;

            @Override
            public int nextInt() {
                return 0xFFFF_FFFE;
            }

            @Override
            public long nextLong() {
                return ++longs;
            }
        };
        JobIds ids = new JobIds(random);
        String a = ids.next(); // counter ...FE, prefix 1
        String b = ids.next(); // counter ...FF, prefix 1; draws prefix 2 for the next
        String c = ids.next(); // counter 0, prefix 2
        assertThat(a).isEqualTo(JobIds.encode(1, 0xFFFF_FFFEL));
        assertThat(b).isEqualTo(JobIds.encode(1, 0xFFFF_FFFFL));
        assertThat(c).isEqualTo(JobIds.encode(2, 0));
    }
}
