package io.github.deferlock.spring;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of deferlock ({@code /actuator/health/deferlock}) on Spring Boot 4's health API: the {@link
 * DeferlockHealthCheck}, DOWN when Redis does not answer PING, when its {@code maxmemory-policy} may evict any
 * key ({@code allkeys-*}: jobs and locks can vanish) and {@code deferlock.queue.allow-eviction-policy} is off,
 * when a worker that should run has stopped, or when a queue's earliest due job has waited longer than {@code
 * deferlock.health.max-oldest-due-age}. Details: the eviction policy, the workers and each queue's oldest due
 * age.
 */
public class DeferlockHealthIndicator extends AbstractHealthIndicator {

    private final DeferlockHealthCheck check;

    /** A health indicator over this check. */
    public DeferlockHealthIndicator(DeferlockHealthCheck check) {
        super("deferlock health check failed");
        this.check = check;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        DeferlockHealthCheck.Result result = check.run();
        (result.up() ? builder.up() : builder.down()).withDetails(result.details());
    }
}
