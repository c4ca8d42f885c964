package io.github.deferlock.lock.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Warns once when the locks' server may evict lock keys: it reads {@code maxmemory} and {@code
 * maxmemory_policy} ({@code INFO memory}) and logs one WARN when a memory limit is set and the policy is not
 * {@code noeviction}. Lock keys carry a TTL, so {@code volatile-*} policies can evict a held lock, and {@code
 * allkeys-*} ones also the fencing counter (tokens stay increasing: acquire.lua raises a counter to the
 * server time). Never fails: when INFO is not permitted or Redis is unreachable it logs at DEBUG. On a
 * cluster the client asks one node. Stateless.
 */
final class EvictionPolicyCheck {
    private static final Logger LOG = LoggerFactory.getLogger(LockEngine.class);

    private EvictionPolicyCheck() {}

    static void run(UnifiedJedis redis, String keyPrefix) {
        String info;
        try {
            info = redis.info("memory");
        } catch (RuntimeException e) {
            LOG.debug("cannot read the server's maxmemory-policy for locks: {}", e.toString());
            return;
        }
        String policy = null;
        long maxmemory = -1;
        for (String line : info.split("\\r?\\n")) {
            if (line.startsWith("maxmemory_policy:")) {
                policy = line.substring("maxmemory_policy:".length()).trim();
            } else if (line.startsWith("maxmemory:")) {
                try {
                    maxmemory =
                            Long.parseLong(line.substring("maxmemory:".length()).trim());
                } catch (NumberFormatException e) {
                    maxmemory = -1;
                }
            }
        }
        if (policy == null || maxmemory == 0 || policy.equals("noeviction")) {
            return;
        }
        LOG.warn(
                "locks under prefix '{}': the server's maxmemory-policy is {} with maxmemory {}, so under memory"
                        + " pressure Redis may evict a held lock's key (lock keys carry a TTL) and let a second holder"
                        + " in; only the fencing token then protects the resource. Set maxmemory-policy to"
                        + " noeviction for the locks' server (docs/locks.md)",
                keyPrefix,
                policy,
                maxmemory);
    }
}
