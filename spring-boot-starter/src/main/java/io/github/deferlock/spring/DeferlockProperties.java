package io.github.deferlock.spring;

import io.github.deferlock.conflict.DeferMode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code deferlock.*} properties. Every setter checks its value, so a bad value fails the application's
 * start with a message naming the property. Durations take Spring's forms ({@code 30s}, {@code 5m}, {@code
 * PT1M}).
 */
@ConfigurationProperties("deferlock")
public class DeferlockProperties {

    /** Whether the deferlock auto-configuration is on. */
    private boolean enabled = true;

    private final Lock lock = new Lock();
    private final Deferrals deferrals = new Deferrals();
    private final QueueDefaults queue = new QueueDefaults();
    private final Map<String, Queue> queues = new LinkedHashMap<>();
    private final Health health = new Health();
    private final Metrics metrics = new Metrics();
    private final Tracing tracing = new Tracing();

    /** Whether the deferlock auto-configuration is on (default true). */
    public boolean isEnabled() {
        return enabled;
    }

    /** Turns the deferlock auto-configuration on or off. */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** The lock settings. */
    public Lock getLock() {
        return lock;
    }

    /** The deferral queue used by {@code @WithLock(onConflict = DEFER)}. */
    public Deferrals getDeferrals() {
        return deferrals;
    }

    /** Settings shared by every delay queue. */
    public QueueDefaults getQueue() {
        return queue;
    }

    /** Per-queue settings, by queue name. */
    public Map<String, Queue> getQueues() {
        return queues;
    }

    /** Health indicator settings. */
    public Health getHealth() {
        return health;
    }

    /** Metrics settings. */
    public Metrics getMetrics() {
        return metrics;
    }

    /** Tracing settings. */
    public Tracing getTracing() {
        return tracing;
    }

    /** {@code deferlock.tracing.*}. */
    public static class Tracing {
        /** Whether jobs carry the enqueuing thread's trace context and workers continue it (needs an ObservationRegistry). */
        private boolean enabled = true;

        /**
         * Whether a retried job, and a deferred call deferred again, runs in a new span linked to its enqueue span
         * rather than in a child of it (needs a Micrometer Tracing Tracer and Propagator).
         */
        private boolean linkRetries = true;

        /** Whether trace context travels with jobs (default true). */
        public boolean isEnabled() {
            return enabled;
        }

        /** Turns trace context through jobs on or off. */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** Whether retries and re-deferred runs link to their enqueue span (default true). */
        public boolean isLinkRetries() {
            return linkRetries;
        }

        /** Turns span links for retries and re-deferred runs on or off (off: every run is a child). */
        public void setLinkRetries(boolean linkRetries) {
            this.linkRetries = linkRetries;
        }
    }

    static Duration positive(String property, Duration d) {
        if (d != null && (d.isNegative() || d.isZero())) {
            throw new IllegalArgumentException(property + " must be positive, not " + d);
        }
        return d;
    }

    static int atLeast(String property, int n, int min) {
        if (n < min) {
            throw new IllegalArgumentException(property + " must be at least " + min + ", not " + n);
        }
        return n;
    }

    /** {@code deferlock.lock.*}. */
    public static class Lock {
        /** The prefix of every lock key (must not contain '{' or '}'). */
        private String keyPrefix = "lock:";

        /** The lease of a hold; the watchdog renews it every third while the hold lasts. */
        private Duration defaultLease = Duration.ofSeconds(30);

        private final SleepRetry sleepRetry = new SleepRetry();

        /** The prefix of every lock key (default {@code lock:}). */
        public String getKeyPrefix() {
            return keyPrefix;
        }

        /** Sets the lock key prefix; it must not contain '{' or '}'. */
        public void setKeyPrefix(String keyPrefix) {
            if (keyPrefix == null || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
                throw new IllegalArgumentException(
                        "deferlock.lock.key-prefix cannot be null or contain '{' or '}': " + keyPrefix);
            }
            this.keyPrefix = keyPrefix;
        }

        /** The watchdog-renewed lease of a hold (default 30 s). */
        public Duration getDefaultLease() {
            return defaultLease;
        }

        /** Sets the default lease; at least 30 ms. */
        public void setDefaultLease(Duration defaultLease) {
            if (defaultLease == null || defaultLease.toMillis() < 30) {
                throw new IllegalArgumentException(
                        "deferlock.lock.default-lease must be at least 30ms, not " + defaultLease);
            }
            this.defaultLease = defaultLease;
        }

        /** SLEEP_RETRY bounds. */
        public SleepRetry getSleepRetry() {
            return sleepRetry;
        }
    }

    /** {@code deferlock.lock.sleep-retry.*}: the bounds of {@code OnConflict.SLEEP_RETRY}. */
    public static class SleepRetry {
        /** The most tries, the first included. */
        private int maxAttempts = 10;

        /** The most time spent sleeping between tries; {@code @WithLock(wait = ...)} overrides it. */
        private Duration maxWait = Duration.ofSeconds(5);

        /** The first sleep; it doubles up to {@code max-delay}, with 20 % jitter. */
        private Duration initialDelay = Duration.ofMillis(50);

        /** The longest sleep. */
        private Duration maxDelay = Duration.ofSeconds(1);

        /** The most tries (default 10). */
        public int getMaxAttempts() {
            return maxAttempts;
        }

        /** Sets the most tries; at least 1. */
        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = atLeast("deferlock.lock.sleep-retry.max-attempts", maxAttempts, 1);
        }

        /** The most time spent sleeping (default 5 s). */
        public Duration getMaxWait() {
            return maxWait;
        }

        /** Sets the most time spent sleeping; positive. */
        public void setMaxWait(Duration maxWait) {
            this.maxWait = positive("deferlock.lock.sleep-retry.max-wait", maxWait);
        }

        /** The first sleep (default 50 ms). */
        public Duration getInitialDelay() {
            return initialDelay;
        }

        /** Sets the first sleep; positive. */
        public void setInitialDelay(Duration initialDelay) {
            this.initialDelay = positive("deferlock.lock.sleep-retry.initial-delay", initialDelay);
        }

        /** The longest sleep (default 1 s). */
        public Duration getMaxDelay() {
            return maxDelay;
        }

        /** Sets the longest sleep; positive. */
        public void setMaxDelay(Duration maxDelay) {
            this.maxDelay = positive("deferlock.lock.sleep-retry.max-delay", maxDelay);
        }
    }

    /** {@code deferlock.deferrals.*}. */
    public static class Deferrals {
        /** The name of the deferral queue. */
        private String queue = "deferlock-deferred";

        /** How many deferrals before a call that keeps conflicting is dead-lettered. */
        private int maxDeferrals = 20;

        /** The delay before the first retry of a deferred call; it doubles up to {@code max-delay}. */
        private Duration initialDelay = Duration.ofMillis(50);

        /** The longest delay between deferrals. */
        private Duration maxDelay = Duration.ofSeconds(30);

        /** Whether this instance runs deferred calls (at least one instance must). */
        private boolean worker = true;

        /** Handler threads of the deferral worker. */
        private int concurrency = 4;

        /**
         * How a deferred call waits: {@code ordered} parks it behind its key and runs it after the release, in the
         * key's order; {@code timed} retries it after the backoff (docs/strategies.md).
         */
        private DeferMode mode = DeferMode.ORDERED;

        /** The DEFER mode (default {@code ordered}). */
        public DeferMode getMode() {
            return mode;
        }

        /** Sets the DEFER mode. */
        public void setMode(DeferMode mode) {
            if (mode == null) {
                throw new IllegalArgumentException("deferlock.deferrals.mode cannot be empty: ordered or timed");
            }
            this.mode = mode;
        }

        /** The deferral queue's name (default {@code deferlock-deferred}). */
        public String getQueue() {
            return queue;
        }

        /** Sets the deferral queue's name. */
        public void setQueue(String queue) {
            if (queue == null || queue.isEmpty()) {
                throw new IllegalArgumentException("deferlock.deferrals.queue cannot be empty");
            }
            this.queue = queue;
        }

        /** Deferrals before dead letters (default 20). */
        public int getMaxDeferrals() {
            return maxDeferrals;
        }

        /** Sets the deferrals before dead letters; at least 1. */
        public void setMaxDeferrals(int maxDeferrals) {
            this.maxDeferrals = atLeast("deferlock.deferrals.max-deferrals", maxDeferrals, 1);
        }

        /** The first deferral delay (default 50 ms). */
        public Duration getInitialDelay() {
            return initialDelay;
        }

        /** Sets the first deferral delay; positive. */
        public void setInitialDelay(Duration initialDelay) {
            this.initialDelay = positive("deferlock.deferrals.initial-delay", initialDelay);
        }

        /** The longest deferral delay (default 30 s). */
        public Duration getMaxDelay() {
            return maxDelay;
        }

        /** Sets the longest deferral delay; positive. */
        public void setMaxDelay(Duration maxDelay) {
            this.maxDelay = positive("deferlock.deferrals.max-delay", maxDelay);
        }

        /** Whether this instance runs deferred calls (default true). */
        public boolean isWorker() {
            return worker;
        }

        /** Turns this instance's deferral worker on or off. */
        public void setWorker(boolean worker) {
            this.worker = worker;
        }

        /** Deferral worker threads (default 4). */
        public int getConcurrency() {
            return concurrency;
        }

        /** Sets the deferral worker threads; at least 1. */
        public void setConcurrency(int concurrency) {
            this.concurrency = atLeast("deferlock.deferrals.concurrency", concurrency, 1);
        }
    }

    /** {@code deferlock.queue.*}: settings shared by every queue. */
    public static class QueueDefaults {
        /** How often the queue gauges read Redis at most. */
        private Duration gaugeRefresh = Duration.ofSeconds(5);

        /** Whether workers start when the server evicts keys ({@code allkeys-*}): jobs may be lost. */
        private boolean allowEvictionPolicy = false;

        /** The most gauge reads per queue: one per this interval (default 5 s). */
        public Duration getGaugeRefresh() {
            return gaugeRefresh;
        }

        /** Sets the gauge refresh; at least 100 ms. */
        public void setGaugeRefresh(Duration gaugeRefresh) {
            if (gaugeRefresh == null || gaugeRefresh.toMillis() < 100) {
                throw new IllegalArgumentException(
                        "deferlock.queue.gauge-refresh must be at least 100ms, not " + gaugeRefresh);
            }
            this.gaugeRefresh = gaugeRefresh;
        }

        /** Whether workers start under an {@code allkeys-*} eviction policy (default false). */
        public boolean isAllowEvictionPolicy() {
            return allowEvictionPolicy;
        }

        /** Lets workers start under an {@code allkeys-*} eviction policy. */
        public void setAllowEvictionPolicy(boolean allowEvictionPolicy) {
            this.allowEvictionPolicy = allowEvictionPolicy;
        }
    }

    /** {@code deferlock.queues.<name>.*}: one queue. Unset values take the library's defaults. */
    public static class Queue {
        /** The payload class; when set, a {@code DelayQueue<payload-type>} bean named {@code <name>DelayQueue}. */
        private Class<?> payloadType;

        /** How long a claimed job stays invisible to other workers (renewed while it runs). */
        private Duration visibilityTimeout;

        /** Attempts before a failing job goes to the dead letters. */
        private Integer maxAttempts;

        /** The first retry delay; it doubles up to {@code retry-max-delay}, with 20 % jitter. */
        private Duration retryInitialDelay;

        /** The longest retry delay. */
        private Duration retryMaxDelay;

        /** The payload class, or null. */
        public Class<?> getPayloadType() {
            return payloadType;
        }

        /** Sets the payload class. */
        public void setPayloadType(Class<?> payloadType) {
            this.payloadType = payloadType;
        }

        /** The visibility timeout, or null for the library default (30 s). */
        public Duration getVisibilityTimeout() {
            return visibilityTimeout;
        }

        /** Sets the visibility timeout; positive. */
        public void setVisibilityTimeout(Duration visibilityTimeout) {
            this.visibilityTimeout = positive("deferlock.queues.<name>.visibility-timeout", visibilityTimeout);
        }

        /** The max attempts, or null for the library default. */
        public Integer getMaxAttempts() {
            return maxAttempts;
        }

        /** Sets the max attempts; at least 1. */
        public void setMaxAttempts(Integer maxAttempts) {
            this.maxAttempts =
                    maxAttempts == null ? null : atLeast("deferlock.queues.<name>.max-attempts", maxAttempts, 1);
        }

        /** The first retry delay, or null for the library default. */
        public Duration getRetryInitialDelay() {
            return retryInitialDelay;
        }

        /** Sets the first retry delay; positive. */
        public void setRetryInitialDelay(Duration retryInitialDelay) {
            this.retryInitialDelay = positive("deferlock.queues.<name>.retry-initial-delay", retryInitialDelay);
        }

        /** The longest retry delay, or null (then 10 minutes when the initial delay is set). */
        public Duration getRetryMaxDelay() {
            return retryMaxDelay;
        }

        /** Sets the longest retry delay; positive. */
        public void setRetryMaxDelay(Duration retryMaxDelay) {
            this.retryMaxDelay = positive("deferlock.queues.<name>.retry-max-delay", retryMaxDelay);
        }
    }

    /** {@code deferlock.health.*}. */
    public static class Health {
        /** A queue whose earliest due job has waited longer than this makes the health DOWN. */
        private Duration maxOldestDueAge = Duration.ofMinutes(10);

        /** The oldest-due-age threshold (default 10 minutes). */
        public Duration getMaxOldestDueAge() {
            return maxOldestDueAge;
        }

        /** Sets the oldest-due-age threshold; positive. */
        public void setMaxOldestDueAge(Duration maxOldestDueAge) {
            this.maxOldestDueAge = positive("deferlock.health.max-oldest-due-age", maxOldestDueAge);
        }
    }

    /** {@code deferlock.metrics.*}. */
    public static class Metrics {
        /** Client-side percentiles of the deferlock timers, e.g. 0.5,0.99. */
        private double[] percentiles = new double[0];

        /** Whether the deferlock timers publish a percentile histogram. */
        private boolean histogram = false;

        /** The client-side percentiles (default none). */
        public double[] getPercentiles() {
            return percentiles.clone();
        }

        /** Sets the client-side percentiles; each within [0, 1]. */
        public void setPercentiles(double[] percentiles) {
            for (double p : percentiles) {
                if (!(p >= 0 && p <= 1)) {
                    throw new IllegalArgumentException("deferlock.metrics.percentiles must be within [0, 1], not " + p);
                }
            }
            this.percentiles = percentiles.clone();
        }

        /** Whether a percentile histogram is published (default false). */
        public boolean isHistogram() {
            return histogram;
        }

        /** Turns the percentile histogram on or off. */
        public void setHistogram(boolean histogram) {
            this.histogram = histogram;
        }
    }
}
