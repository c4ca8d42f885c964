package io.github.deferlock.micrometer;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.QueueListener;
import io.github.deferlock.redis.internal.Require;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Meters over delay queues and their workers: one instance serves every queue (the meters are tagged with the
 * queue's name). Give it to {@code DelayQueue.Builder.listener}, {@link #monitor} the queues whose sizes you want
 * as gauges, and bind it to a registry.
 *
 * <pre>{@code
 * QueueMetrics metrics = QueueMetrics.builder().timers(TimerOptions.DEFAULT.percentiles(0.99)).build();
 * DelayQueue<Email> emails = DelayQueue.builder(redis, "emails", Email.class).listener(metrics).build();
 * metrics.monitor(emails);
 * metrics.bindTo(registry);
 * }</pre>
 *
 * <table>
 *   <caption>Meters, each tagged {@code queue}</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code deferlock.queue.enqueued}</td><td>counter</td><td>jobs stored</td></tr>
 *   <tr><td>{@code deferlock.queue.claimed}</td><td>counter</td><td>jobs claimed by a worker (each attempt)</td></tr>
 *   <tr><td>{@code deferlock.queue.run}</td><td>timer</td><td>handler runs that returned normally, by run time</td></tr>
 *   <tr><td>{@code deferlock.queue.lateness}</td><td>timer</td><td>those runs, by how late they started (start − due)</td></tr>
 *   <tr><td>{@code deferlock.queue.failed}</td><td>counter, tag {@code retry}</td><td>handler failures; {@code retry=false}: dead-lettered</td></tr>
 *   <tr><td>{@code deferlock.queue.dead.letters}</td><td>counter</td><td>jobs moved to the dead letters</td></tr>
 *   <tr><td>{@code deferlock.queue.claims.lost}</td><td>counter</td><td>running jobs whose claim could not be renewed</td></tr>
 *   <tr><td>{@code deferlock.queue.given.back}</td><td>counter</td><td>claimed jobs given back unrun</td></tr>
 *   <tr><td>{@code deferlock.queue.due}</td><td>gauge ({@link #monitor})</td><td>jobs waiting, scheduled ones included</td></tr>
 *   <tr><td>{@code deferlock.queue.in.flight}</td><td>gauge ({@link #monitor})</td><td>jobs claimed and not settled</td></tr>
 *   <tr><td>{@code deferlock.queue.dead}</td><td>gauge ({@link #monitor})</td><td>dead letters held</td></tr>
 *   <tr><td>{@code deferlock.queue.oldest.due.age}</td><td>time gauge ({@link #monitor})</td><td>how long the earliest due job has been due</td></tr>
 *   <tr><td>{@code deferlock.queue.total.enqueued}</td><td>function counter ({@link #monitor})</td><td>jobs stored by any client of the queue: its counter in Redis</td></tr>
 *   <tr><td>{@code deferlock.queue.total.acked}</td><td>function counter ({@link #monitor})</td><td>jobs acked by any worker of the queue</td></tr>
 *   <tr><td>{@code deferlock.queue.total.dead.lettered}</td><td>function counter ({@link #monitor})</td><td>jobs moved to the dead letters by any client</td></tr>
 * </table>
 *
 * <p>The event meters count what this process saw. The {@code total} counters are the queue's own counters in
 * Redis, kept by its scripts: every process is counted, and every instance that monitors the queue reports the
 * same value (aggregate them with max, not sum). The gauges and {@code total} counters read Redis with one script
 * call ({@code DelayQueue.stats()}) at most once per {@link Builder#gaugeRefresh} per queue (default 5 s),
 * whatever the scrape rate; a failed read shows the gauges as NaN until the next one succeeds. Queue names are the only per-queue tag;
 * past {@link Builder#maxQueues} distinct names (default 100) further queues share the tag {@code queue=_other},
 * so the meter count stays bounded. Threadsafe; the builder is not.
 */
public final class QueueMetrics implements QueueListener, MeterBinder {

    private static final Logger LOG = LoggerFactory.getLogger(QueueMetrics.class);

    /** The {@code queue} tag of the queues past {@link Builder#maxQueues}. */
    public static final String OTHER_QUEUES = "_other";

    private final BoundRegistries registries = new BoundRegistries();
    private final Map<String, QueueMeters> meters = new ConcurrentHashMap<>();
    private final Map<String, QueueGauges> gauges = new ConcurrentHashMap<>();
    private final TimerOptions timers;
    private final Duration gaugeRefresh;
    private final int maxQueues;
    private final Clock clock;

    private QueueMetrics(Builder b) {
        this.timers = Require.orDefault(b.timers, TimerOptions.DEFAULT);
        this.gaugeRefresh = Require.orDefault(b.gaugeRefresh, Duration.ofSeconds(5));
        this.maxQueues = b.maxQueues == 0 ? 100 : b.maxQueues;
        this.clock = Require.orDefault(b.clock, Clock.systemUTC());
    }

    /** A builder with the defaults: {@link TimerOptions#DEFAULT}, gauges refreshed every 5 s, 100 queues. */
    public static Builder builder() {
        return new Builder();
    }

    /** Binds the meters of every queue, present and future, to {@code registry}. */
    @Override
    public void bindTo(MeterRegistry registry) {
        registries.add(registry);
    }

    /**
     * Publishes the gauges {@code deferlock.queue.due}, {@code .in.flight}, {@code .dead} and {@code
     * .oldest.due.age} and the counters {@code deferlock.queue.total.enqueued}, {@code .total.acked} and {@code
     * .total.dead.lettered} of {@code queue}. Monitoring a queue of the same name again does nothing.
     *
     * @return this
     * @throws NullPointerException when {@code queue} is null
     */
    public QueueMetrics monitor(DelayQueue<?> queue) {
        Require.notNull("queue", queue);
        String tag = tagFor(queue.name());
        if (tag.equals(OTHER_QUEUES)) {
            LOG.warn("not publishing gauges for queue '{}': over {} queues monitored", queue.name(), maxQueues);
            return this;
        }
        gauges.computeIfAbsent(
                queue.name(),
                n -> new QueueGauges(registries.registry(), tag, new QueueSnapshots(queue, gaugeRefresh, clock)));
        return this;
    }

    /** The queue names whose gauges are published, for endpoints and health checks. */
    public java.util.Set<String> monitoredQueues() {
        return java.util.Set.copyOf(gauges.keySet());
    }

    private QueueMeters metersOf(String queue) {
        QueueMeters m = meters.get(queue);
        if (m != null) {
            return m;
        }
        String tag = tagFor(queue);
        return meters.computeIfAbsent(
                tag.equals(OTHER_QUEUES) ? OTHER_QUEUES : queue,
                n -> new QueueMeters(registries.registry(), tag, timers));
    }

    private String tagFor(String queue) {
        if (meters.containsKey(queue) || gauges.containsKey(queue)) {
            return queue;
        }
        return meters.size() + gauges.size() >= maxQueues ? OTHER_QUEUES : queue;
    }

    @Override
    public void onEnqueued(String queue, String jobId, Instant dueAt) {
        metersOf(queue).enqueued.increment();
    }

    @Override
    public void onClaimed(String queue, String jobId, int attempt) {
        metersOf(queue).claimed.increment();
    }

    @Override
    public void onHandled(String queue, String jobId, Duration runTime, Duration lateness) {
        QueueMeters m = metersOf(queue);
        m.run.record(runTime);
        m.lateness.record(lateness);
    }

    @Override
    public void onFailed(String queue, String jobId, int attempt, Throwable error, boolean willRetry) {
        QueueMeters m = metersOf(queue);
        (willRetry ? m.failedRetried : m.failedFinal).increment();
    }

    @Override
    public void onDeadLettered(String queue, String jobId, String reason) {
        metersOf(queue).deadLetters.increment();
    }

    @Override
    public void onClaimLost(String queue, String jobId) {
        metersOf(queue).claimsLost.increment();
    }

    @Override
    public void onGivenBack(String queue, String jobId) {
        metersOf(queue).givenBack.increment();
    }

    /** Builds {@link QueueMetrics}. Each setting may be set once. Not threadsafe. */
    public static final class Builder {
        private TimerOptions timers;
        private Duration gaugeRefresh;
        private int maxQueues;
        private Clock clock;

        private Builder() {}

        /** Percentiles and histogram of the run and lateness timers (default {@link TimerOptions#DEFAULT}). */
        public Builder timers(TimerOptions options) {
            timers = Require.setOnce("timers", timers, Require.notNull("timers", options));
            return this;
        }

        /**
         * How long a gauge reading is reused before Redis is asked again (default 5 s, at least 100 ms).
         *
         * @throws IllegalArgumentException when under 100 ms or over an hour
         */
        public Builder gaugeRefresh(Duration interval) {
            Require.within("gaugeRefresh", interval, Duration.ofMillis(100), Duration.ofHours(1));
            gaugeRefresh = Require.setOnce("gaugeRefresh", gaugeRefresh, interval);
            return this;
        }

        /**
         * The most distinct queue tags (default 100); events of further queues are counted under {@code
         * queue=_other}.
         *
         * @throws IllegalArgumentException when under 1 or over 10,000
         */
        public Builder maxQueues(int n) {
            Require.within("maxQueues", n, 1, 10_000);
            if (maxQueues != 0) {
                throw new IllegalStateException("maxQueues was already set to " + maxQueues);
            }
            maxQueues = n;
            return this;
        }

        /** The clock the gauge cache reads (default the system clock); for tests. */
        public Builder clock(Clock c) {
            clock = Require.setOnce("clock", clock, Require.notNull("clock", c));
            return this;
        }

        /** Builds the metrics. */
        public QueueMetrics build() {
            return new QueueMetrics(this);
        }
    }
}
