package io.github.deferlock.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.MissedSlots;
import io.github.deferlock.delay.ScheduleInfo;
import io.github.deferlock.delay.ScheduleSpec;
import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The README "Recurring schedules" snippet, verbatim between the markers, and a cron schedule that fires. */
@ExtendWith(RedisExtension.class)
final class ReadmeScheduleExampleTest {

    /** A payload. */
    public record Report(String name) {}

    interface Reporter {
        void run(Report report);
    }

    @Test
    void readmeSnippet_upsertsAndLists_andACronScheduleFiresOnItsSlots(UnifiedJedis redis) {
        List<String> ran = new CopyOnWriteArrayList<>();
        Reporter reporter = report -> ran.add(report.name());

        // README-BEGIN
        DelayQueue<Report> reports =
                DelayQueue.builder(redis, "reports", Report.class).build();
        // 09:00 Paris time on weekdays; upserting the same spec at every start keeps the next slot
        reports.schedules()
                .upsert("weekday-sales", CronSpec.of("0 9 * * MON-FRI", "Europe/Paris"), new Report("sales"));
        reports.schedules()
                .upsert("ping", ScheduleSpec.fixedRate(Duration.ofMinutes(5)), new Report("ping"), MissedSlots.skip());
        // 10 minutes after the previous cleanup finished, never two at once
        reports.schedules().upsert("cleanup", ScheduleSpec.fixedDelay(Duration.ofMinutes(10)), new Report("cleanup"));

        // workers also fire the schedules: each slot once, however many processes run them
        DelayQueueWorker<Report> worker = DelayQueueWorker.builder(reports, job -> reporter.run(job.payload()))
                .build()
                .start();
        // README-END

        List<ScheduleInfo> listed = reports.schedules().list();
        assertThat(listed).extracting(ScheduleInfo::id).containsExactly("cleanup", "ping", "weekday-sales");
        assertThat(listed.get(0).spec()).isEqualTo("delay:PT10M");
        assertThat(listed.get(0).nextFire().orElseThrow()).isAfter(Instant.now().plusSeconds(500));
        assertThat(listed.get(2).spec()).isEqualTo("cron:0 9 * * MON-FRI|Europe/Paris");
        assertThat(listed.get(2).nextFire().orElseThrow()).isAfter(Instant.now().minusSeconds(60));

        // a six-field (seconds) cron fires every second, read back through the ServiceLoader by the worker
        reports.schedules().upsert("every-second", CronSpec.of("* * * * * *", "UTC"), new Report("tick"));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> ran.stream().filter("tick"::equals).count() >= 2);
        worker.close();
    }
}
