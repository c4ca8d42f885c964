package io.github.deferlock.soak;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * The recorder side of a schedule: a redis-server that no fault touches, holding the event list, the fenced
 * resources and the phase flag the client JVMs follow. Threadsafe (the client is).
 */
final class Recorder {

    /** The list every event line is appended to. */
    static final String EVENTS = "soak:events";
    /** {@code run} while producers and lock holders work, {@code drain} once the faults stopped. */
    static final String PHASE = "soak:phase";

    private static final String FENCE_SCRIPT = load("fenced_write.lua");

    private final UnifiedJedis redis;
    private volatile String fenceSha;

    Recorder(UnifiedJedis redis) {
        this.redis = redis;
    }

    /** Appends one event line (fields joined by spaces). */
    void event(Object... fields) {
        StringBuilder sb = new StringBuilder();
        for (Object f : fields) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(f);
        }
        redis.rpush(EVENTS, sb.toString());
    }

    /**
     * Writes to fenced resource {@code resource} with {@code token} on behalf of {@code hold}; {@code held} is
     * what the holder's {@code isHeld()} said just before.
     *
     * @return true when the resource accepted the write
     */
    boolean fencedWrite(String resource, long token, String hold, long sendMs, boolean held) {
        List<String> keys = List.of("soak:fence:{" + resource + "}", EVENTS);
        List<String> args = List.of(Long.toString(token), hold, resource, Long.toString(sendMs), held ? "1" : "0");
        String sha = fenceSha;
        if (sha == null) {
            sha = redis.scriptLoad(FENCE_SCRIPT);
            fenceSha = sha;
        }
        Object r = redis.evalsha(sha, keys, args);
        return r instanceof Long l && l == 1L;
    }

    /** The phase the runner set: {@code run} or {@code drain}. */
    String phase() {
        String p = redis.get(PHASE);
        return p == null ? "run" : p;
    }

    /** Sets the phase. */
    void phase(String phase) {
        redis.set(PHASE, phase);
    }

    /** Every event line recorded so far, in order. */
    List<String> events() {
        return redis.lrange(EVENTS, 0, -1);
    }

    private static String load(String name) {
        try (InputStream in = Recorder.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
