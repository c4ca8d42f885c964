package io.github.deferlock.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.conflict.ConflictListener;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.QueueListener;
import io.github.deferlock.delay.RedisQueues;
import io.github.deferlock.lock.LockListener;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.micrometer.JobObservations;
import io.github.deferlock.micrometer.QueueMetrics;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import redis.clients.jedis.UnifiedJedis;

/**
 * Auto-configuration of deferlock: a Jedis client from {@code spring.data.redis.*} unless the application
 * defines a {@link UnifiedJedis}; {@link RedisLocks}, {@link LockRunner}, {@link RedisQueues}, {@link Deferrals}
 * and {@link DelayQueues} from {@code deferlock.*} (each only when the application defines none; the deferral
 * queue and the delay queues are built through the one {@link RedisQueues}, so all their workers share one
 * pub/sub connection); the {@code @WithLock}
 * and {@code @DelayQueueListener} processing; and the {@link DeferlockWorkers} lifecycle. Every {@link
 * LockListener}, {@link ConflictListener} and {@link QueueListener} bean (the Micrometer binders among them)
 * hears the events. Off with {@code deferlock.enabled=false}.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass(UnifiedJedis.class)
@ConditionalOnProperty(prefix = "deferlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(DeferlockProperties.class)
public class DeferlockAutoConfiguration {

    /**
     * Creates the auto-configuration; Spring calls it.
     *
     * @throws IllegalStateException when the Jedis on the classpath is older than Jedis 8 (Spring Boot's own
     *     dependency management chooses 7.0.0 or 6.0.0): the application stops at start-up with a report that
     *     names the {@code jedis.version} property to set
     */
    public DeferlockAutoConfiguration() {
        JedisRequirement.check();
    }

    /** The Jackson 2 mapper of deferred calls: plain, with the modules on the classpath (java.time, ...). */
    static ObjectMapper deferralMapper() {
        return new ObjectMapper().findAndRegisterModules();
    }

    /** The Jedis client built from {@code spring.data.redis.*}, unless the application defines one. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(UnifiedJedis.class)
    public UnifiedJedis deferlockRedis(Environment environment, ObjectProvider<SslBundles> sslBundles) {
        RedisConnectionSettings settings = Binder.get(environment)
                .bind("spring.data.redis", RedisConnectionSettings.class)
                .orElseGet(RedisConnectionSettings::new);
        return RedisClientFactory.create(settings, sslBundles.getIfAvailable());
    }

    /** The locks, with {@code deferlock.lock.*}. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public RedisLocks redisLocks(
            UnifiedJedis redis, DeferlockProperties properties, ObjectProvider<LockListener> listeners) {
        return RedisLocks.builder(redis)
                .keyPrefix(properties.getLock().getKeyPrefix())
                .defaultLease(properties.getLock().getDefaultLease())
                .listener(CompositeListeners.lock(listeners.orderedStream().toList()))
                .build();
    }

    @Bean(destroyMethod = "close")
    LockClients deferlockLockClients(
            UnifiedJedis redis,
            RedisLocks locks,
            DeferlockProperties properties,
            ObjectProvider<LockListener> lockListeners,
            ObjectProvider<ConflictListener> conflictListeners) {
        return new LockClients(
                redis,
                locks,
                properties.getLock(),
                CompositeListeners.lock(lockListeners.orderedStream().toList()),
                CompositeListeners.conflict(conflictListeners.orderedStream().toList()));
    }

    /** THROW and SLEEP_RETRY in plain code, with {@code deferlock.lock.sleep-retry.*}. */
    @Bean
    @ConditionalOnMissingBean
    public LockRunner lockRunner(LockClients clients) {
        return clients.runner(null, null);
    }

    /**
     * The owner of the deferral queue and the delay queues: their workers share its notice bus, one pub/sub
     * connection of the client's pool, however many queues there are. Closed after the workers (they depend on
     * it).
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public RedisQueues redisQueues(UnifiedJedis redis) {
        return RedisQueues.on(redis);
    }

    /** The deferral queue of {@code @WithLock(onConflict = DEFER)}, with {@code deferlock.deferrals.*}. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Deferrals deferrals(
            RedisQueues queues,
            DeferlockProperties properties,
            ObjectProvider<QueueListener> queueListeners,
            ObjectProvider<QueueMetrics> metrics,
            ObjectProvider<JobObservations> observations) {
        DeferlockProperties.Deferrals d = properties.getDeferrals();
        Deferrals.Builder b = Deferrals.builder(queues, d.getQueue());
        observations.ifAvailable(o -> b.queueHeaders(o.headers(d.getQueue())));
        Deferrals deferrals = b.objectMapper(deferralMapper())
                .backoff(Backoff.exponential(d.getInitialDelay(), d.getMaxDelay(), 2.0)
                        .withJitter(0.2))
                .maxDeferrals(d.getMaxDeferrals())
                .mode(d.getMode())
                .queueListener(
                        CompositeListeners.queue(queueListeners.orderedStream().toList()))
                .build();
        metrics.ifAvailable(m -> m.monitor(deferrals.queue()));
        return deferrals;
    }

    /** The application's delay queues, with {@code deferlock.queues.<name>.*}. */
    @Bean
    @ConditionalOnMissingBean
    public DelayQueues delayQueues(
            RedisQueues queues,
            DeferlockProperties properties,
            ObjectProvider<QueueListener> queueListeners,
            ObjectProvider<QueueMetrics> metrics,
            ObjectProvider<JobObservations> observations) {
        QueueMetrics m = metrics.getIfAvailable();
        return new DelayQueues(
                queues,
                properties.getQueues(),
                CompositeListeners.queue(queueListeners.orderedStream().toList()),
                q -> {
                    if (m != null) {
                        m.monitor(q);
                    }
                },
                observations.getIfAvailable());
    }

    @Bean
    static WithLockPostProcessor deferlockWithLockPostProcessor() {
        return new WithLockPostProcessor();
    }

    @Bean
    static RateLimitedPostProcessor deferlockRateLimitedPostProcessor() {
        return new RateLimitedPostProcessor();
    }

    @Bean
    static DelayQueueListenerPostProcessor deferlockListenerPostProcessor() {
        return new DelayQueueListenerPostProcessor();
    }

    @Bean
    static RecurringJobPostProcessor deferlockRecurringJobPostProcessor() {
        return new RecurringJobPostProcessor();
    }

    /** The {@code @RecurringJob} schedules and their workers. */
    @Bean
    RecurringJobs deferlockRecurringJobs(
            BeanFactory beanFactory, Environment environment, DeferlockProperties properties, DelayQueues queues) {
        return new RecurringJobs(
                beanFactory, environment, beanFactory.getBean(RecurringJobPostProcessor.class), queues, properties);
    }

    @Bean
    static DelayQueueBeans deferlockDelayQueueBeans() {
        return new DelayQueueBeans();
    }

    /** The workers' lifecycle. */
    @Bean
    public DeferlockWorkers deferlockWorkers(
            BeanFactory beanFactory,
            Environment environment,
            DeferlockProperties properties,
            DelayQueues queues,
            Deferrals deferrals,
            ObjectProvider<JobObservations> observations) {
        return new DeferlockWorkers(
                beanFactory,
                environment,
                beanFactory.getBean(DelayQueueListenerPostProcessor.class),
                beanFactory.getBean(WithLockPostProcessor.class),
                queues,
                deferrals,
                properties,
                observations.getIfAvailable());
    }
}
