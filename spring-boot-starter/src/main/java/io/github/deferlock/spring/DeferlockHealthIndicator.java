package io.github.deferlock.spring;

import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.delay.DelayQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import redis.clients.jedis.UnifiedJedis;

/**
 * Health of deferlock ({@code /actuator/health/deferlock}): DOWN when Redis does not answer PING, when its
 * {@code maxmemory-policy} may evict any key ({@code allkeys-*}: jobs and locks can vanish) and {@code
 * deferlock.queue.allow-eviction-policy} is off, when a worker that should run has stopped, or when a queue's
 * earliest due job has waited longer than {@code deferlock.health.max-oldest-due-age}. Details: the eviction
 * policy, the workers and each queue's oldest due age.
 */
public class DeferlockHealthIndicator extends AbstractHealthIndicator {

    private final UnifiedJedis redis;
    private final DelayQueues queues;
    private final Deferrals deferrals;
    private final DeferlockWorkers workers;
    private final DeferlockProperties properties;

    /** A health indicator over these beans. */
    public DeferlockHealthIndicator(
            UnifiedJedis redis,
            DelayQueues queues,
            Deferrals deferrals,
            DeferlockWorkers workers,
            DeferlockProperties properties) {
        super("deferlock health check failed");
        this.redis = redis;
        this.queues = queues;
        this.deferrals = deferrals;
        this.workers = workers;
        this.properties = properties;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        redis.ping();
        List<String> problems = new ArrayList<>();
        String policy = evictionPolicy();
        builder.withDetail("evictionPolicy", policy);
        if (policy.startsWith("allkeys-") && !properties.getQueue().isAllowEvictionPolicy()) {
            problems.add("maxmemory-policy " + policy + " may evict queue and lock keys");
        }
        Map<String, Boolean> running = workers.workers();
        builder.withDetail("workers", running);
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
        builder.withDetail("oldestDueAge", ages);
        if (problems.isEmpty()) {
            builder.up();
        } else {
            builder.down().withDetail("problems", problems);
        }
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
