package io.github.deferlock.delay.internal;

import io.github.deferlock.redis.internal.Retry;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Reads the server's {@code maxmemory-policy}, so a worker can refuse a server that may evict the queue's
 * keys. Stateless and threadsafe.
 */
public final class EvictionPolicyProbe {
    private static final Logger LOG = LoggerFactory.getLogger(EvictionPolicyProbe.class);
    private static final String FIELD = "maxmemory_policy:";

    private EvictionPolicyProbe() {}

    /**
     * The policy, read from {@code INFO memory} or, when INFO is not permitted (ACL {@code -@dangerous}), from
     * {@code CONFIG GET}; empty when neither is allowed or Redis fails. On Cluster the client sends them to one
     * node only.
     *
     * @param queue the queue name, for the debug log
     */
    public static Optional<String> read(UnifiedJedis redis, String queue) {
        try {
            Optional<String> policy = fromInfo(Retry.CONNECTION_ERRORS.call(() -> redis.info("memory")));
            if (policy.isPresent()) {
                return policy;
            }
        } catch (RuntimeException e) { // NOPERM, or a client type that cannot send INFO
            LOG.debug("queue '{}': INFO memory failed, trying CONFIG GET: {}", queue, e.toString());
        }
        try {
            Map<String, String> config = Retry.CONNECTION_ERRORS.call(() -> redis.configGet("maxmemory-policy"));
            return Optional.ofNullable(config.get("maxmemory-policy"));
        } catch (RuntimeException e) {
            LOG.debug("queue '{}': CONFIG GET maxmemory-policy failed: {}", queue, e.toString());
        }
        return Optional.empty();
    }

    /** The policy in the text of {@code INFO memory}, or empty when it has none. */
    static Optional<String> fromInfo(String info) {
        for (String line : info.split("\\r?\\n")) {
            if (line.startsWith(FIELD)) {
                return Optional.of(line.substring(FIELD.length()).trim());
            }
        }
        return Optional.empty();
    }
}
