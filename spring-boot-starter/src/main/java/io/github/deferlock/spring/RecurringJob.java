package io.github.deferlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs this bean method on a recurring schedule kept in Redis (docs/delay-queue.md, "Recurring schedules"): at
 * every slot of the cron expression (in {@link #zone()}) or of the fixed rate, or a fixed delay after the previous
 * run finished, a job is enqueued in {@link
 * #queue()}, and a worker of this application calls the method. However many instances run, each slot runs once
 * (at least once: a method that throws is retried with the queue's backoff, like any job). The method takes no
 * parameter.
 *
 * <pre>{@code
 * @RecurringJob(cron = "0 9 * * MON-FRI", zone = "Europe/Paris")
 * void weekdayReport() { reports.send(); }
 * }</pre>
 *
 * <p>At start-up each annotated method's schedule is upserted: the same spec keeps its next slot, so restarts
 * neither skip nor repeat a slot; slots missed while no instance ran fire once. Schedules of methods that are
 * gone stay in Redis until removed ({@code queue.schedules().remove(id)}). Attributes take placeholders.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RecurringJob {

    /** The schedule id (1 to 200 UTF-8 bytes); default {@code <bean name>.<method name>}. */
    String id() default "";

    /**
     * A cron expression: 5 fields (Unix) or 6 (seconds first, as {@code @Scheduled}); or use {@link #fixedRate()}
     * or {@link #fixedDelay()}.
     */
    String cron() default "";

    /** The time zone of {@link #cron()}, e.g. {@code Europe/Paris}; default UTC. */
    String zone() default "UTC";

    /** A fixed rate instead of a cron expression: {@code 5m}, {@code 30s}, {@code PT1H} (at least 1 s). */
    String fixedRate() default "";

    /**
     * A fixed delay instead: the next run this long after the previous one finished (returned, or failed for good),
     * never while it runs: {@code 5m}, {@code 30s}, {@code PT1H} (1 s to 366 days). The first run is this long
     * after the first start; seen within about 1 s of a run's end ({@code
     * io.github.deferlock.delay.ScheduleSpec#fixedDelay}).
     */
    String fixedDelay() default "";

    /** The delay queue that carries the runs; default {@code deferlock-recurring}. */
    String queue() default "deferlock-recurring";
}
