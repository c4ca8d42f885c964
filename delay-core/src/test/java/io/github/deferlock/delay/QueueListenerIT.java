package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The queue's own events: every stored job, and every job the queue itself moves to the dead letters. */
@ExtendWith(RedisExtension.class)
final class QueueListenerIT {

    /** Records the queue's events as text. */
    static final class Recording implements QueueListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void onEnqueued(String queue, String jobId, Instant dueAt) {
            events.add("enqueued " + queue + " " + jobId + " " + dueAt.toEpochMilli());
        }

        @Override
        public void onDeadLettered(String queue, String jobId, String reason) {
            events.add("dead " + queue + " " + jobId + " " + reason);
        }
    }

    /** Throws from every method. */
    static final class Throwing implements QueueListener {
        int calls;

        @Override
        public void onEnqueued(String queue, String jobId, Instant dueAt) {
            calls++;
            throw new IllegalStateException("listener bug");
        }

        @Override
        public void onDeadLettered(String queue, String jobId, String reason) {
            calls++;
            throw new Error("listener error");
        }
    }

    private static String enqueued(EnqueueResult r) {
        return "enqueued l " + r.id() + " " + r.dueAt().toEpochMilli();
    }

    @Test
    void onEnqueued_isToldOfEveryStoredJob_onEveryPath_butNotOfADuplicate(UnifiedJedis redis) {
        Recording listener = new Recording();
        DelayQueue<Msg> q =
                DelayQueue.builder(redis, "l", Msg.class).listener(listener).build();
        Instant at = Instant.now().plusSeconds(60);
        List<EnqueueResult> results = new ArrayList<>();
        results.add(q.enqueue(new Msg("a", 1)));
        results.add(q.enqueue(new Msg("b", 1), Duration.ofSeconds(5)));
        results.add(q.enqueue("c", new Msg("c", 1), Duration.ZERO));
        results.add(q.schedule(new Msg("d", 1), at));
        results.add(q.schedule("e", new Msg("e", 1), at));
        results.add(q.enqueueJob(NewJob.of(new Msg("f", 1)).withHeader("k", "v")));
        results.addAll(
                q.enqueueAll(List.of(NewJob.of("g", new Msg("g", 1), Duration.ZERO), NewJob.of(new Msg("h", 1)))));
        results.addAll(q.enqueueAll(List.of(new Msg("i", 1)), Duration.ofMillis(10)));

        assertThat(listener.events)
                .containsExactlyElementsOf(
                        results.stream().map(QueueListenerIT::enqueued).toList());
        assertThat(results.get(3).dueAt()).isEqualTo(at.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));

        listener.events.clear();
        assertThat(q.enqueue("c", new Msg("c", 2), Duration.ZERO).duplicate()).isTrue();
        assertThat(q.enqueueAll(List.of(NewJob.of("g", new Msg("g", 2), Duration.ZERO)))
                        .get(0)
                        .duplicate())
                .isTrue();
        assertThat(listener.events).isEmpty();
    }

    @Test
    void onDeadLettered_isToldByDeadLetter_andForAnUndecodablePayload(UnifiedJedis redis) {
        Recording listener = new Recording();
        DelayQueue<Msg> q =
                DelayQueue.builder(redis, "l", Msg.class).listener(listener).build();
        q.enqueue("poison", new Msg("p", 1), Duration.ZERO);
        Job<Msg> job = q.claim(1).get(0);
        listener.events.clear();

        assertThat(q.deadLetter(job, "bad input")).isTrue();
        assertThat(q.deadLetter(job, "again")).isFalse(); // stale: nothing moved, nothing told
        assertThat(listener.events).containsExactly("dead l poison bad input");

        DelayQueue<Map<String, Object>> raw = DelayQueue.builder(
                        redis, "l", new TypeReference<Map<String, Object>>() {})
                .build();
        raw.enqueue("garbled", Map.of("n", "not a number"), Duration.ZERO);
        listener.events.clear();
        assertThat(q.claim(10)).isEmpty();
        assertThat(listener.events).singleElement().asString().startsWith("dead l garbled undecodable payload: ");
    }

    @Test
    void throwingListener_changesNothing(UnifiedJedis redis) {
        Throwing listener = new Throwing();
        DelayQueue<Msg> q =
                DelayQueue.builder(redis, "l", Msg.class).listener(listener).build();

        EnqueueResult one = q.enqueue("x", new Msg("x", 1), Duration.ZERO);
        List<EnqueueResult> batch = q.enqueueAll(List.of(NewJob.of("y", new Msg("y", 1), Duration.ZERO)));
        assertThat(one.duplicate()).isFalse();
        assertThat(batch.get(0).duplicate()).isFalse();
        assertThat(q.size(JobState.DUE)).isEqualTo(2);

        List<Job<Msg>> jobs = q.claim(10);
        assertThat(jobs).extracting(Job::id).containsExactly("x", "y");
        assertThat(q.deadLetter(jobs.get(0), "dead anyway")).isTrue();
        assertThat(jobs.get(0).isSettled()).isTrue();
        assertThat(q.deadLetters().list(10)).extracting(DeadLetter::id).containsExactly("x");
        assertThat(q.ack(jobs.get(1))).isTrue();
        assertThat(listener.calls).isEqualTo(3);
    }
}
