package io.github.deferlock.delay.internal;

import io.github.deferlock.redis.internal.QueueKeyspace;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Redis key layout of one queue; every key carries the hash tag {@code {name}} so a queue lives in one
 * cluster slot (see docs/queue-keys.md). Immutable and threadsafe.
 *
 * @param due the due zset of priority 0: member {@code <seq><id>}, score the due time (epoch ms); a job of
 *     priority k (1 to 9) waits in {@code <due>:<k>} instead, and {@code <due>:levels} lists the levels in use
 *     (levels.lua derives these keys)
 * @param inflight the in-flight zset: member {@code <seq><id>}, score the visibility deadline (epoch ms)
 * @param jobs the jobs hash: field the job id, value the envelope
 * @param dead the dead-letter zset: member {@code <seq><id>}, score the time of death (epoch ms)
 * @param errors the errors hash: field the job id, value its last error; and field {@code 0xFF<id>}, value the
 *     progress its handler last reported ({@code <attempt>|<ms>|<percent>|<note>}, progress.lua)
 * @param seq the sequence counter (enqueue order and receipts)
 * @param stats the stats hash: monotonic counters {@code enqueued}, {@code acked}, {@code dead} kept by the scripts
 * @param paused the paused marker: a string, the server time the queue was paused (epoch ms); absent while it runs
 * @param keyLimits the concurrency limits per key: a hash, field {@code ""} the limit of every key, field {@code
 *     <key>} that key's own (keylimits.lua)
 * @param heldCounts how many jobs each concurrency key has held back: a hash, field the key
 * @param channel the wake channel (not a key)
 * @param replayPrefix the prefix of the replay records: one string per replay slot, holding the reply of the
 *     slot's last write call ({@link #replay(String)}, {@link ReplaySlots})
 */
public record QueueKeys(
        byte[] due,
        byte[] inflight,
        byte[] jobs,
        byte[] dead,
        byte[] errors,
        byte[] seq,
        byte[] stats,
        byte[] paused,
        byte[] keyLimits,
        byte[] heldCounts,
        byte[] channel,
        String replayPrefix) {

    /** The common prefix of every key of queue {@code name}. */
    public static String prefix(String name) {
        return QueueKeyspace.prefix(name);
    }

    /** The keys of queue {@code name}. */
    public static QueueKeys of(String name) {
        String p = prefix(name);
        return new QueueKeys(
                bytes(p + "due"),
                bytes(p + "inflight"),
                bytes(p + "jobs"),
                bytes(p + "dead"),
                bytes(p + "errors"),
                bytes(p + "seq"),
                bytes(p + "stats"),
                bytes(p + "paused"),
                bytes(p + "keylimits"),
                bytes(p + "held"),
                bytes(p + "wake"),
                p + "r:");
    }

    /**
     * The rate limit of the queue ({@code <prefix>rate-limit}): a string {@code "<rate> <interval in µs>
     * <burst>"}, absent when the queue has none (rate_limit.lua, queue_rate.lua). Derived from {@link #due()}'s
     * prefix, so it shares the queue's slot.
     */
    public byte[] rateLimit() {
        return sibling("rate-limit");
    }

    /**
     * The GCRA state of the queue's rate limit ({@code <prefix>rate}): the theoretical arrival time in server
     * microseconds; expires when the queue is idle (gcra.lua).
     */
    public byte[] rateState() {
        return sibling("rate");
    }

    /**
     * The liveness mark of the queue ({@code <prefix>alive}, liveness.lua): a hash, field {@code seen} the server
     * time (ms) of the last call of a worker, fields {@code from} and {@code until} the last hold (a claim after a
     * gap in the workers' calls returns no in-flight job whose deadline is later than {@code from} before {@code
     * until}). No TTL. Derived from {@link #due()}'s prefix, so it shares the queue's slot.
     */
    public byte[] alive() {
        return sibling("alive");
    }

    private byte[] sibling(String suffix) {
        // due is <prefix>due
        byte[] s = suffix.getBytes(StandardCharsets.US_ASCII);
        byte[] out = java.util.Arrays.copyOf(due, due.length - 3 + s.length);
        System.arraycopy(s, 0, out, due.length - 3, s.length);
        return out;
    }

    /**
     * How many jobs of each concurrency key are in flight ({@code <prefix>running}): a hash, field the key, value
     * the count; the field is deleted at 0 (keylimits.lua).
     */
    public byte[] runningCounts() {
        return bytes(replayPrefix.substring(0, replayPrefix.length() - 2) + "running");
    }

    /**
     * The zset of the jobs held back for concurrency key {@code key}: member {@code <seq><id>}, score {@code (9 -
     * priority) * 10^13 + due ms} (keylimits.lua).
     */
    public byte[] held(String key) {
        return bytes(replayPrefix.substring(0, replayPrefix.length() - 2) + "held:" + key);
    }

    /** The replay record of replay slot {@code slot} ({@link ReplaySlots#slot(String)}). */
    public byte[] replay(String slot) {
        return bytes(replayPrefix + slot);
    }

    /** The given keys as a list, in the given order. */
    public static List<byte[]> list(byte[]... keys) {
        return List.of(keys);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
