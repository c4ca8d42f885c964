package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * The Jedis requirement and its start-up report. The report on a real Jedis 7 (Boot 4.0.7's) and Jedis 6
 * (Boot 3.5.7's) is checked by .ci/check-boot-apps, which builds applications as a user would.
 */
final class JedisVersionFailureAnalyzerTest {

    @Test
    void version_isTheJedisTheBuildUses() {
        assertThat(JedisRequirement.found())
                .as("the version deferlock names is the one its build resolves (jedis.version in the parent pom)")
                .isEqualTo(JedisRequirement.VERSION);
        assertThat(JedisRequirement.met()).isTrue();
        assertThatCode(JedisRequirement::check).doesNotThrowAnyException();
    }

    @Test
    void analyzer_isRegisteredForSpringBoot_aheadOfItsOwn() {
        List<FailureAnalyzer> all = SpringFactoriesLoader.forDefaultResourceLocation(
                        getClass().getClassLoader())
                .load(
                        FailureAnalyzer.class,
                        SpringFactoriesLoader.ArgumentResolver.none(),
                        // Boot's analyzers that need a bean factory are not made here; they are not ours
                        SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {}));
        assertThat(all).hasAtLeastOneElementOfType(JedisVersionFailureAnalyzer.class);
        assertThat(all.get(0)).isInstanceOf(JedisVersionFailureAnalyzer.class);
    }

    @Test
    void onJedis8_analyzesNothing() {
        assertThat(new JedisVersionFailureAnalyzer()
                        .analyze(new BeanCreationException("x", new NoClassDefFoundError("redis/clients/jedis/X"))))
                .isNull();
    }

    @Test
    void olderJedis_missingClass_namesThePropertyToSet() {
        var failure = new BeanCreationException(
                "Error creating bean with name 'deferlockRedis'",
                new NoClassDefFoundError("redis/clients/jedis/RedisClient"));
        FailureAnalysis a = JedisVersionFailureAnalyzer.analyze(failure, false, "7.0.0");
        assertThat(a).isNotNull();
        assertThat(a.getDescription())
                .contains("Jedis 7.0.0")
                .contains("redis.clients:jedis 8.0.2")
                .contains("NoClassDefFoundError: redis/clients/jedis/RedisClient");
        assertThat(a.getAction())
                .contains("<jedis.version>8.0.2</jedis.version>")
                .contains("spring-boot-starter-parent");
        assertThat(a.getCause()).isSameAs(failure);
    }

    @Test
    void olderJedis_missingMethod_andTheStartersOwnCheck_areAnalyzed() {
        var noMethod = new NoSuchMethodError(
                "'redis.clients.jedis.DefaultJedisClientConfig$Builder redis.clients.jedis.DefaultJedisClientConfig$Builder.autoNegotiateProtocol(boolean)'");
        assertThat(JedisVersionFailureAnalyzer.analyze(new IllegalStateException("x", noMethod), false, "7.0.0"))
                .isNotNull();
        var own = new JedisRequirement.JedisVersionException("6.0.0");
        assertThat(own.getMessage())
                .contains("Jedis 6.0.0")
                .contains("redis.clients.jedis.RedisClient")
                .contains("<jedis.version>8.0.2</jedis.version>");
        assertThat(JedisVersionFailureAnalyzer.analyze(new BeanCreationException("x", own), false, "6.0.0"))
                .isNotNull();
    }

    @Test
    void olderJedis_unrelatedFailure_isLeftToOtherAnalyzers() {
        assertThat(JedisVersionFailureAnalyzer.analyze(
                        new BeanCreationException("x", new IllegalArgumentException("port in use")), false, "7.0.0"))
                .isNull();
    }
}
