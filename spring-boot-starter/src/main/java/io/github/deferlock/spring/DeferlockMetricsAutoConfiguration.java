package io.github.deferlock.spring;

import io.github.deferlock.micrometer.ConflictMetrics;
import io.github.deferlock.micrometer.LockMetrics;
import io.github.deferlock.micrometer.QueueMetrics;
import io.github.deferlock.micrometer.TimerOptions;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The deferlock Micrometer binders, when the application has a {@link MeterRegistry}: {@link LockMetrics}
 * (tagged with {@code deferlock.lock.key-prefix}), {@link ConflictMetrics} (tagged {@code name=with-lock}) and
 * {@link QueueMetrics} (gauges for every queue the application uses). Spring Boot binds them to its registry.
 */
@AutoConfiguration(
        before = DeferlockAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass({MeterRegistry.class, LockMetrics.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = "deferlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(DeferlockProperties.class)
public class DeferlockMetricsAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public DeferlockMetricsAutoConfiguration() {}

    private static TimerOptions timers(DeferlockProperties p) {
        return TimerOptions.DEFAULT
                .percentiles(p.getMetrics().getPercentiles())
                .histogram(p.getMetrics().isHistogram());
    }

    /** Lock meters. */
    @Bean
    @ConditionalOnMissingBean
    public LockMetrics deferlockLockMetrics(DeferlockProperties properties) {
        return new LockMetrics(properties.getLock().getKeyPrefix(), timers(properties));
    }

    /** Conflict strategy meters of {@code @WithLock} and the {@code LockRunner} bean. */
    @Bean
    @ConditionalOnMissingBean
    public ConflictMetrics deferlockConflictMetrics(DeferlockProperties properties) {
        return new ConflictMetrics("with-lock", timers(properties));
    }

    /** Queue meters and gauges. */
    @Bean
    @ConditionalOnMissingBean
    public QueueMetrics deferlockQueueMetrics(DeferlockProperties properties) {
        return QueueMetrics.builder()
                .timers(timers(properties))
                .gaugeRefresh(properties.getQueue().getGaugeRefresh())
                .build();
    }
}
