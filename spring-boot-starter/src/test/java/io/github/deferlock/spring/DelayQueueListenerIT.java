package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.DeadLetter;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.spring.EmailListener.Email;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** {@code @DelayQueueListener} workers in real applications: handling, retries, dead letters, graceful shutdown. */
final class DelayQueueListenerIT {

    static final RedisServer SERVER = RedisServer.start();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        EmailListener emailListener() {
            return new EmailListener();
        }
    }

    @AfterAll
    static void stopRedis() {
        SERVER.close();
    }

    @BeforeEach
    void flush() {
        SERVER.flushAll();
    }

    private static ConfigurableApplicationContext start(String... extra) {
        List<String> props = new java.util.ArrayList<>(List.of(
                "spring.data.redis.host=" + SERVER.host(),
                "spring.data.redis.port=" + SERVER.port(),
                "deferlock.queues.emails.max-attempts=3",
                "deferlock.queues.emails.retry-initial-delay=50ms",
                "deferlock.queues.emails.retry-max-delay=100ms",
                "deferlock.queues.emails.payload-type=" + Email.class.getName(),
                "spring.main.banner-mode=off"));
        props.addAll(List.of(extra));
        return new SpringApplicationBuilder(App.class)
                .properties(props.toArray(String[]::new))
                .run();
    }

    @SuppressWarnings("unchecked")
    private static DelayQueue<Email> emails(ConfigurableApplicationContext context) {
        return (DelayQueue<Email>) context.getBean("emailsDelayQueue");
    }

    @Test
    void handles_retries_andDeadLetters() {
        try (ConfigurableApplicationContext context = start()) {
            EmailListener listener = context.getBean(EmailListener.class);
            DelayQueue<Email> emails = emails(context);
            for (int i = 0; i < 5; i++) {
                emails.enqueue(new Email("ok:" + i));
            }
            emails.enqueue(new Email("flaky:1"));
            emails.enqueue(new Email("poison:1"));
            emails.enqueue(new Email("later:1"), Duration.ofMillis(500));
            context.getBean(DelayQueues.class).get("audit", String.class).enqueue("entry");

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> listener.handled().size() == 8 && emails.size(JobState.DEAD) == 1);
            assertThat(listener.handled())
                    .containsExactlyInAnyOrder(
                            "ok:0", "ok:1", "ok:2", "ok:3", "ok:4", "flaky:1", "later:1", "audit:entry#1");
            assertThat(listener.attempts("flaky:1")).isEqualTo(3);
            assertThat(listener.attempts("poison:1")).isEqualTo(3);
            List<DeadLetter> dead = emails.deadLetters().list(10);
            assertThat(dead).singleElement().satisfies(d -> {
                assertThat(d.payloadJson()).contains("poison:1");
                assertThat(d.reason()).contains("poison");
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> emails.size(JobState.IN_FLIGHT) == 0);
            assertThat(emails.size(JobState.DUE)).isZero();
        }
    }

    @Test
    void shutdown_letsTheRunningJobFinish_andGivesTheRestBack() throws Exception {
        ConfigurableApplicationContext context =
                start("test.emails.concurrency=1", "spring.lifecycle.timeout-per-shutdown-phase=20s");
        EmailListener listener = context.getBean(EmailListener.class);
        DelayQueue<Email> emails = emails(context);
        emails.enqueue(new Email("slow:1"));
        assertThat(listener.awaitSlowStarted()).isTrue();
        for (int i = 0; i < 3; i++) {
            emails.enqueue(new Email("after:" + i));
        }
        DeferlockWorkers workers = context.getBean(DeferlockWorkers.class);
        CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> workers.workers().values().stream().noneMatch(running -> running));
        assertThat(closing).as("the close waits for the running handler").isNotDone();
        listener.letSlowFinish();
        closing.get(30, TimeUnit.SECONDS);

        assertThat(listener.handled()).contains("slow:1");
        try (var redis = SERVER.newClient()) {
            DelayQueue<Email> q =
                    DelayQueue.builder(redis, "emails", Email.class).build();
            assertThat(q.size(JobState.IN_FLIGHT)).as("nothing left claimed").isZero();
            assertThat(q.size(JobState.DEAD)).isZero();
            long waiting = q.size(JobState.DUE);
            int handledAfter = (int) listener.handled().stream()
                    .filter(h -> h.startsWith("after:"))
                    .count();
            assertThat(waiting + handledAfter)
                    .as("every job handled or still due")
                    .isEqualTo(3);
        }

        // a new instance runs what was given back, each once
        try (ConfigurableApplicationContext next = start()) {
            EmailListener again = next.getBean(EmailListener.class);
            List<String> before = listener.handled();
            await().atMost(Duration.ofSeconds(30))
                    .until(() ->
                            emails(next).size(JobState.DUE) == 0 && emails(next).size(JobState.IN_FLIGHT) == 0);
            List<String> all = new java.util.ArrayList<>(before);
            all.addAll(again.handled());
            assertThat(all)
                    .filteredOn(h -> h.startsWith("after:"))
                    .containsExactlyInAnyOrder("after:0", "after:1", "after:2");
            assertThat(all).filteredOn(h -> h.equals("slow:1")).hasSize(1);
        }
    }
}
