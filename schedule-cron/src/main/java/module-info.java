/** Cron schedules with a time zone for the delay queue's recurring schedules. Only {@code io.github.deferlock.cron} is API. */
module io.github.deferlock.cron {
    requires transitive io.github.deferlock.delay;
    requires com.cronutils;

    exports io.github.deferlock.cron;

    provides io.github.deferlock.delay.ScheduleSpecParser with
            io.github.deferlock.cron.CronSpecParser;
}
