package io.github.deferlock.delay;

import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a worker does with the server's {@code maxmemory-policy} when it starts: an {@code allkeys-*} policy lets
 * Redis evict queue keys and silently drop jobs, so the worker refuses to start unless eviction was allowed
 * (then one WARN); a policy it could not read is one WARN and it starts. Stateless.
 */
final class EvictionPolicyCheck {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueueWorker.class);

    private EvictionPolicyCheck() {}

    /**
     * Judges {@code policy} (empty: it could not be read).
     *
     * @throws IllegalStateException when the policy is {@code allkeys-*} and {@code allowed} is false
     */
    static void check(String queueName, Optional<String> policy, boolean allowed) {
        if (policy.isEmpty()) {
            LOG.warn(
                    "queue '{}': could not check the server's maxmemory-policy (INFO and CONFIG GET are not"
                            + " permitted or failed); if it is allkeys-*, Redis may evict queue keys and lose jobs",
                    queueName);
            return;
        }
        String p = policy.get();
        if (!p.startsWith("allkeys-")) {
            return;
        }
        String problem = "queue '" + queueName + "': the server's maxmemory-policy is " + p
                + ", so Redis may evict queue keys and silently drop jobs; set maxmemory-policy to noeviction (or a"
                + " volatile-* policy: queue keys have no TTL)";
        if (!allowed) {
            throw new IllegalStateException(problem + ", or build the worker with allowEvictionPolicy(true)");
        }
        LOG.warn("{} (starting anyway: allowEvictionPolicy(true))", problem);
    }
}
