package io.github.deferlock.spring;

import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.delay.DelayQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * The checks behind {@link DeferlockHealthIndicator}, free of any Spring Boot health API so that an application
 * on another health API (Spring Boot 3.5's {@code org.springframework.boot.actuate.health}) can adapt it in a few
 * lines (docs/spring-boot.md, Compatibility). {@link #run()} is DOWN when Redis's {@code maxmemory-policy} may
 * evict any key ({@code allkeys-*}) and {@code deferlock.queue.allow-eviction-policy} is off, when a worker that
 * should run has stopped, or when a queue's earliest due job has waited longer than {@code
 * deferlock.health.max-oldest-due-age}; it throws when Redis does not answer PING. Threadsafe.
 */
public class DeferlockHealthCheck {

    /**
     * The outcome of one check.
     *
     * @param up whether deferlock is healthy
     * @param details {@code evictionPolicy}, {@code workers}, {@code oldestDueAge}, and {@code problems} when down
     */
    public record Result(boolean up, Map<String, Object> details) {
        /** Copies the details. */
        public Result {
            details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
        }
    }

    private final UnifiedJedis redis;
    private final DelayQueues queues;
    private final Deferrals deferrals;
    private final DeferlockWorkers workers;
    private final DeferlockProperties properties;

    /** A check over these beans. */
    public DeferlockHealthCheck(
            UnifiedJedis redis,
            DelayQueues queues,
            Deferrals deferrals,
            DeferlockWorkers workers,
            DeferlockProperties properties) {
        this.redis = redis;
        this.queues = queues;
        this.deferrals = deferrals;
        this.workers = workers;
        this.properties = properties;
    }

    /**
     * Runs the checks.
     *
     * @return up or down, with the details
     * @throws RuntimeException (Jedis's) when Redis does not answer PING
     */
    public Result run() {
        redis.ping();
        Map<String, Object> details = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        String policy = evictionPolicy();
        details.put("evictionPolicy", policy);
        if (policy.startsWith("allkeys-") && !properties.getQueue().isAllowEvictionPolicy()) {
            problems.add("maxmemory-policy " + policy + " may evict queue and lock keys");
        }
        Map<String, Boolean> running = workers.workers();
        details.put("workers", running);
        if (workers.isRunning()) {
            running.forEach((id, up) -> {
                if (!up) {
                    problems.add("worker " + id + " is not running");
                }
            });
        }
        Duration limit = properties.getHealth().getMaxOldestDueAge();
        Map<String, String> ages = new LinkedHashMap<>();
        List<DelayQueue<?>> all = new ArrayList<>(queues.all());
        all.add(deferrals.queue());
        for (DelayQueue<?> q : all) {
            Duration age = q.oldestDueAge();
            ages.put(q.name(), age.toString());
            if (age.compareTo(limit) > 0) {
                problems.add("queue " + q.name() + " has a job due for " + age + " (over " + limit + ")");
            }
        }
        details.put("oldestDueAge", ages);
        if (!problems.isEmpty()) {
            details.put("problems", problems);
        }
        return new Result(problems.isEmpty(), details);
    }

    private String evictionPolicy() {
        try {
            Map<String, String> reply = redis.configGet("maxmemory-policy");
            return reply.getOrDefault("maxmemory-policy", "unknown");
        } catch (RuntimeException e) {
            return "unknown (CONFIG GET refused: " + e.getMessage() + ")";
        }
    }
}
