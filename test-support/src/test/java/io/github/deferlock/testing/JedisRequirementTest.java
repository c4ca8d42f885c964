package io.github.deferlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

/** On Jedis 8 the check passes; on Boot's own Jedis 7 and 6 .ci/check-boot-apps sees its message. */
final class JedisRequirementTest {

    @Test
    void check_onTheBuildsJedis_passes_andNamesItsVersion() {
        assertThatCode(JedisRequirement::check).doesNotThrowAnyException();
        assertThat(JedisRequirement.found())
                .as("the version named is the one the build resolves (jedis.version in the parent pom)")
                .isEqualTo(JedisRequirement.VERSION);
    }
}
