package io.github.deferlock.cron;

import io.github.deferlock.delay.ScheduleSpec;
import io.github.deferlock.delay.ScheduleSpecParser;

/**
 * Reads stored {@link CronSpec}s ({@code cron:<expression>|<zone id>}); found by {@link java.util.ServiceLoader}
 * when deferlock-cron is on the class path or module path. Threadsafe.
 */
public final class CronSpecParser implements ScheduleSpecParser {
    /** For {@link java.util.ServiceLoader}. */
    public CronSpecParser() {}

    @Override
    public String kind() {
        return CronSpec.KIND;
    }

    @Override
    public ScheduleSpec parse(String text) {
        return CronSpec.parse(text);
    }
}
