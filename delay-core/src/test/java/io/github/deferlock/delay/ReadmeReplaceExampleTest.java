package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.EnqueueResult.Outcome;
import io.github.deferlock.delay.NewJob.Replace;
import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The README "Replace and debounce" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeReplaceExampleTest {

    /** A payload. */
    public record Doc(long id, String version) {}

    @Test
    void readmeSnippet_compiles_andReplacesTheWaitingJobs(UnifiedJedis redis) {
        DelayQueue<Doc> docs = DelayQueue.builder(redis, "docs", Doc.class).build();
        docs.enqueueJob(NewJob.debounce("reindex-42", new Doc(42, "v2"), Duration.ofSeconds(5)));
        docs.enqueue("report-7", new Doc(7, "stale"), Duration.ofMinutes(1));

        // README-BEGIN
        // each edit pushes the reindex out: it runs once, with the last payload, 5 s after the edits stop
        EnqueueResult r = docs.enqueueJob(NewJob.debounce("reindex-42", new Doc(42, "v3"), Duration.ofSeconds(5)));
        // ADDED (first call), REPLACED (the job was waiting), RUNNING (claimed: left alone) or DEAD

        // replace what a waiting job carries, keeping its due time
        docs.enqueueJob(
                NewJob.of("report-7", new Doc(7, "fresh"), Duration.ZERO).replacing(Replace.PAYLOAD));
        // README-END

        assertThat(r.outcome()).isEqualTo(Outcome.REPLACED);
        assertThat(docs.size(JobState.DUE)).isEqualTo(2);
        assertThat(docs.get("report-7").orElseThrow().dueAt().orElseThrow())
                .isAfter(java.time.Instant.now().plusSeconds(30));
        assertThat(docs.claim(10)).isEmpty(); // neither is due yet
    }
}
