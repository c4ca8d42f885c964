package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.RedisQueues;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.micrometer.ConflictMetrics;
import io.github.deferlock.micrometer.LockMetrics;
import io.github.deferlock.micrometer.QueueMetrics;
import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisSentinelGroup;
import io.github.deferlock.testing.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.SafeEncoder;

/** One test per auto-configuration condition, each in a real context against a real redis-server. */
@ExtendWith(RedisExtension.class)
final class DeferlockAutoConfigurationIT {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DeferlockMetricsAutoConfiguration.class,
                    DeferlockAutoConfiguration.class,
                    DeferlockActuatorAutoConfiguration.class));

    private static String[] redisAt(RedisServer server) {
        return new String[] {"spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port()};
    }

    @SuppressWarnings("deprecation") // the generic sendCommand: UnifiedJedis has no ACL WHOAMI of its own
    private static String whoAmI(UnifiedJedis client) {
        return SafeEncoder.encode((byte[]) client.sendCommand(Protocol.Command.ACL, "WHOAMI"));
    }

    /** The payload of the typed queue bean. */
    public record Email(String to) {}

    @Test
    void standalone_fromSpringDataRedisProperties(RedisServer server) {
        runner.withPropertyValues(redisAt(server)).run(context -> {
            assertThat(context).hasNotFailed();
            UnifiedJedis redis = context.getBean(UnifiedJedis.class);
            assertThat(redis).isInstanceOf(RedisClient.class);
            assertThat(redis.ping()).isEqualTo("PONG");
            assertThat(context)
                    .hasSingleBean(RedisLocks.class)
                    .hasSingleBean(LockRunner.class)
                    .hasSingleBean(Deferrals.class)
                    .hasSingleBean(DelayQueues.class)
                    .hasSingleBean(DeferlockWorkers.class)
                    .doesNotHaveBean(LockMetrics.class);
            String[] ran = new String[1];
            context.getBean(LockRunner.class).withLock("order:1", OnConflict.THROW, () -> ran[0] = "ran");
            assertThat(ran[0]).isEqualTo("ran");
        });
    }

    @Test
    void usernameAndPassword_andUrl(RedisServer server) {
        try (var admin = server.newConnection()) {
            admin.aclSetUser("app", "on", ">s3cret", "~*", "&*", "+@all");
        }
        try {
            runner.withPropertyValues(
                            redisAt(server)[0],
                            redisAt(server)[1],
                            "spring.data.redis.username=app",
                            "spring.data.redis.password=s3cret")
                    .run(context -> assertThat(whoAmI(context.getBean(UnifiedJedis.class)))
                            .isEqualTo("app"));
            runner.withPropertyValues(
                            "spring.data.redis.url=redis://app:s3cret@" + server.host() + ":" + server.port() + "/2")
                    .run(context -> {
                        UnifiedJedis redis = context.getBean(UnifiedJedis.class);
                        assertThat(whoAmI(redis)).isEqualTo("app");
                        redis.set("in-db-2", "x");
                        try (var admin = server.newConnection()) {
                            admin.select(2);
                            assertThat(admin.get("in-db-2")).isEqualTo("x");
                        }
                    });
            runner.withPropertyValues(
                            redisAt(server)[0],
                            redisAt(server)[1],
                            "spring.data.redis.username=app",
                            "spring.data.redis.password=wrong")
                    // the client connects on first use (Redis may be down at start), where the password is refused
                    .run(context -> assertThatThrownBy(
                                    () -> context.getBean(UnifiedJedis.class).ping())
                            .hasStackTraceContaining("WRONGPASS"));
        } finally {
            try (var admin = server.newConnection()) {
                admin.aclDelUser("app");
            }
        }
    }

    @Test
    void userDefinedClient_wins(RedisServer server) {
        try (RedisClient mine = server.newClient()) {
            runner.withBean(UnifiedJedis.class, () -> mine, d -> d.setDestroyMethodName(""))
                    .withPropertyValues("spring.data.redis.port=1") // would fail if used
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context.getBean(UnifiedJedis.class)).isSameAs(mine);
                    });
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLocks {
        @Bean
        RedisLocks myLocks(UnifiedJedis redis) {
            return RedisLocks.builder(redis).keyPrefix("mine:").build();
        }
    }

    @Test
    void userDefinedLocks_win(RedisServer server) {
        runner.withPropertyValues(redisAt(server))
                .withUserConfiguration(OwnLocks.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(RedisLocks.class);
                    assertThat(context.getBean(RedisLocks.class).get("a").key()).startsWith("mine:");
                });
    }

    /**
     * The deferral queue and the application's queues are built through the one {@link RedisQueues} bean: ten
     * queues' workers hold one subscription connection of the client's pool (8 connections by default; a
     * connection per queue would hang a worker's start, which the timeout turns into a failure), and the bean is
     * closed with the context.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void redisQueues_ownsTheDeferralsAndEveryQueue_soTheirWorkersShareOneSubscriber(RedisServer server) {
        AtomicReference<RedisQueues> owner = new AtomicReference<>();
        runner.withPropertyValues(redisAt(server)).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RedisQueues.class);
            owner.set(context.getBean(RedisQueues.class));
            DelayQueues queues = context.getBean(DelayQueues.class);
            List<DelayQueueWorker<String>> workers = new ArrayList<>();
            try (Deferrals deferrals = context.getBean(Deferrals.class)) {
                for (int i = 0; i < 9; i++) {
                    workers.add(DelayQueueWorker.builder(queues.get("q" + i, String.class), job -> {})
                            .build()
                            .start());
                }
                deferrals.startWorker(1);
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                                .as("one connection holds the ten queues' channels")
                                .containsExactly(10));
            } finally {
                workers.forEach(DelayQueueWorker::close);
            }
        });
        assertThatThrownBy(() -> owner.get().builder("after", String.class))
                .as("closed with the context")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void userDefinedRedisQueues_wins(RedisServer server) {
        try (RedisClient mine = server.newClient()) {
            RedisQueues own = RedisQueues.on(mine);
            runner.withPropertyValues(redisAt(server))
                    .withBean(RedisQueues.class, () -> own, d -> d.setDestroyMethodName(""))
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(RedisQueues.class);
                        assertThat(context.getBean(RedisQueues.class)).isSameAs(own);
                        own.close(); // the starter's queues are built through it: now they cannot be
                        assertThatThrownBy(
                                        () -> context.getBean(DelayQueues.class).get("late", String.class))
                                .isInstanceOf(IllegalStateException.class)
                                .hasMessageContaining("was closed");
                    });
        }
    }

    @Test
    void deferlockProperties_bind(RedisServer server) {
        runner.withPropertyValues(redisAt(server))
                .withPropertyValues(
                        "deferlock.lock.key-prefix=app:",
                        "deferlock.deferrals.queue=app-deferred",
                        "deferlock.deferrals.max-deferrals=3",
                        "deferlock.queues.emails.max-attempts=7",
                        "deferlock.queues.emails.visibility-timeout=45s",
                        "deferlock.queues.emails.payload-type=" + Email.class.getName())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    DistributedLock lock = context.getBean(RedisLocks.class).get("order:1");
                    assertThat(lock.key()).startsWith("app:");
                    Deferrals deferrals = context.getBean(Deferrals.class);
                    assertThat(deferrals.maxDeferrals()).isEqualTo(3);
                    assertThat(deferrals.queue().name()).isEqualTo("app-deferred");
                    DelayQueue<Email> emails =
                            context.getBean(DelayQueues.class).get("emails", Email.class);
                    assertThat(emails.maxAttempts()).isEqualTo(7);
                    assertThat(emails.visibilityTimeout()).isEqualTo(Duration.ofSeconds(45));
                    assertThat(context.getBean("emailsDelayQueue")).isSameAs(emails);
                    assertThatThrownBy(() -> context.getBean(DelayQueues.class).get("emails", String.class))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("queue 'emails' is already used with payload type");
                });
    }

    @Test
    void badProperty_failsTheStartNamingIt(RedisServer server) {
        runner.withPropertyValues(redisAt(server))
                .withPropertyValues("deferlock.deferrals.max-deferrals=0")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("deferlock.deferrals.max-deferrals"));
        runner.withPropertyValues(redisAt(server))
                .withPropertyValues("deferlock.lock.default-lease=soon")
                .run(context ->
                        assertThat(context).getFailure().hasStackTraceContaining("deferlock.lock.default-lease"));
        runner.withPropertyValues(redisAt(server))
                .withPropertyValues("deferlock.lock.key-prefix={x}")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining("deferlock.lock.key-prefix"));
    }

    @Test
    void disabled_configuresNothing(RedisServer server) {
        runner.withPropertyValues(redisAt(server))
                .withPropertyValues("deferlock.enabled=false")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(RedisLocks.class)
                        .doesNotHaveBean(UnifiedJedis.class)
                        .doesNotHaveBean(LockMetrics.class));
    }

    @Test
    void meterRegistry_bringsTheBinders(RedisServer server) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runner.withPropertyValues(redisAt(server))
                .withBean(MeterRegistry.class, () -> registry)
                .run(context -> {
                    assertThat(context)
                            .hasSingleBean(LockMetrics.class)
                            .hasSingleBean(ConflictMetrics.class)
                            .hasSingleBean(QueueMetrics.class);
                    // Boot's MeterRegistryPostProcessor is not in this slice: bind as it would
                    context.getBean(LockMetrics.class).bindTo(registry);
                    context.getBean(ConflictMetrics.class).bindTo(registry);
                    context.getBean(LockRunner.class).withLock("a", OnConflict.THROW, () -> {});
                    assertThat(registry.get("deferlock.lock.acquired").timer().count())
                            .isEqualTo(1);
                    assertThat(registry.get("deferlock.conflict.processed")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                });
    }

    @Test
    void cluster_fromClusterNodes() {
        try (RedisCluster cluster = RedisCluster.start()) {
            String nodes = String.join(
                    ",",
                    cluster.seeds().stream()
                            .map(h -> h.getHost() + ":" + h.getPort())
                            .toList());
            runner.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes)
                    .run(context -> {
                        assertThat(context.getBean(UnifiedJedis.class)).isInstanceOf(RedisClusterClient.class);
                        boolean[] ran = new boolean[1];
                        context.getBean(LockRunner.class).withLock("order:1", OnConflict.THROW, () -> ran[0] = true);
                        assertThat(ran[0]).isTrue();
                    });
        }
    }

    @Test
    void sentinel_fromSentinelMasterAndNodes() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            String nodes = String.join(
                    ",",
                    group.sentinels().stream()
                            .map(h -> h.getHost() + ":" + h.getPort())
                            .toList());
            runner.withPropertyValues(
                            "spring.data.redis.sentinel.master=" + RedisSentinelGroup.MASTER_NAME,
                            "spring.data.redis.sentinel.nodes=" + nodes)
                    .run(context -> {
                        assertThat(context.getBean(UnifiedJedis.class)).isInstanceOf(RedisSentinelClient.class);
                        context.getBean(UnifiedJedis.class).set("via-sentinel", "1");
                        assertThat(group.servers().get(0).newClient().get("via-sentinel"))
                                .isEqualTo("1");
                    });
        }
    }

    /** DEFER cannot return a plain value: the caller could not tell a deferred call from a done one. */
    public static class DeferReturningValue {
        @WithLock(key = "'a'", onConflict = LockStrategy.DEFER)
        public String apply(String x) {
            return x;
        }
    }

    /** maxWait belongs to SLEEP_RETRY. */
    public static class ThrowWithWait {
        @WithLock(key = "'a'", maxWait = "1s")
        public void apply() {}
    }

    @Test
    void badWithLock_failsTheStartNamingTheMethod(RedisServer server) {
        runner.withPropertyValues(redisAt(server))
                .withBean(DeferReturningValue.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "DeferReturningValue.apply uses OnConflict.DEFER but returns" + " java.lang.String"));
        runner.withPropertyValues(redisAt(server)).withBean(ThrowWithWait.class).run(context -> assertThat(context)
                .getFailure()
                .hasStackTraceContaining("ThrowWithWait.apply: maxWait applies to OnConflict.SLEEP_RETRY only"));
    }
}
