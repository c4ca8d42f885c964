package io.github.deferlock.inspect;

import io.github.deferlock.inspect.internal.InspectLua;
import io.github.deferlock.inspect.internal.LockKeys;
import io.github.deferlock.redis.internal.Script;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ZRangeParams;
import redis.clients.jedis.resps.Tuple;

/**
 * Reads the conflicts view (docs/ops.md, "Conflict stats"): the top {@code top} members of each per-minute,
 * per-strategy bucket {@code <prefix>conflicts:<STRATEGY>:<epoch minute>} of the last {@code minutes}
 * minutes, one {@code ZRANGE … REV WITHSCORES} each (single-key, so it works on a cluster), merged here; then
 * one read-only script per lock shown, in that lock's slot. Work per call: {@code 3 × minutes + top}
 * commands. Stateless.
 */
final class ConflictRead {
    static final List<String> STRATEGIES = List.of("THROW", "SLEEP_RETRY", "DEFER");
    private static final Script CONFLICT_KEY = InspectLua.load("conflict_key");

    private ConflictRead() {}

    static ConflictReport read(UnifiedJedis redis, String prefix, int minutes, int top, Instant now) {
        long nowMinute = Math.floorDiv(now.toEpochMilli(), 60_000L);
        long first = nowMinute - minutes + 1;
        Map<String, long[]> counts = new HashMap<>();
        for (long m = first; m <= nowMinute; m++) {
            for (int s = 0; s < STRATEGIES.size(); s++) {
                String bucket = prefix + "conflicts:" + STRATEGIES.get(s) + ":" + m;
                List<Tuple> members = Inspector.call(
                        "read conflict bucket '" + bucket + "'",
                        () -> redis.zrangeWithScores(
                                bucket, ZRangeParams.zrangeParams(0L, top - 1L).rev()));
                for (Tuple t : members) {
                    counts.computeIfAbsent(t.getElement(), k -> new long[3])[s] += (long) t.getScore();
                }
            }
        }
        List<Map.Entry<String, long[]>> ranked = new ArrayList<>(counts.entrySet());
        ranked.sort(Comparator.comparingLong((Map.Entry<String, long[]> e) -> -sum(e.getValue()))
                .thenComparing(Map.Entry::getKey));
        List<ConflictView> views = new ArrayList<>();
        for (Map.Entry<String, long[]> e : ranked.subList(0, Math.min(top, ranked.size()))) {
            String key;
            try {
                key = LockKeys.lockKey(prefix, e.getKey());
            } catch (IllegalArgumentException notALockName) {
                continue; // not written by deferlock: a lock name is valid by construction
            }
            views.add(view(redis, e.getKey(), key, e.getValue(), now));
        }
        Instant since = Instant.ofEpochMilli(first * 60_000L);
        return new ConflictReport(prefix, since, Duration.between(since, now), views);
    }

    private static ConflictView view(UnifiedJedis redis, String name, String key, long[] c, Instant now) {
        List<?> r = (List<?>) Inspector.call(
                "read lock '" + name + "'",
                () -> CONFLICT_KEY.run(
                        redis,
                        List.of(
                                bytes(key),
                                bytes(key + ":waiters"),
                                bytes(key + ":parked"),
                                bytes(key + ":parked-items")),
                        List.of()));
        String type = text(r.get(0));
        String value = text(r.get(1));
        long pttl = (Long) r.get(2);
        long oldest = (Long) r.get(5);
        boolean reserved = value.startsWith("~");
        boolean held = "string".equals(type) && !value.isEmpty() && !reserved;
        String token = held && value.endsWith("+") ? value.substring(0, value.length() - 1) : value;
        return new ConflictView(
                name,
                key,
                c[0],
                c[1],
                c[2],
                (Long) r.get(3),
                (Long) r.get(4),
                oldest >= 0
                        ? Optional.of(Duration.ofMillis(Math.max(0, now.toEpochMilli() - oldest)))
                        : Optional.empty(),
                held ? Optional.of(token) : Optional.empty(),
                held && pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty());
    }

    private static long sum(long[] c) {
        return c[0] + c[1] + c[2];
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(Object reply) {
        return reply == null ? "" : new String((byte[]) reply, StandardCharsets.UTF_8);
    }
}
