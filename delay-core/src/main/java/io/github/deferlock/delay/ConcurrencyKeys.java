package io.github.deferlock.delay;

import io.github.deferlock.delay.internal.QueueKeys;
import io.github.deferlock.delay.internal.QueueTransport;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.Require;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The concurrency limits of one queue's keys, from {@link DelayQueue#concurrencyKeys()}: at most {@code max} jobs
 * of one concurrency key ({@link NewJob#withConcurrencyKey}) are claimed at once, across every worker and process,
 * e.g. at most 3 jobs per tenant so that one tenant cannot take every worker.
 *
 * <pre>{@code
 * orders.concurrencyKeys().limit(3);               // every key: at most 3 jobs at once
 * orders.concurrencyKeys().limit("tenant-big", 10); // this key's own limit wins
 * orders.enqueueJob(NewJob.of(order).withConcurrencyKey("tenant-" + order.tenant()));
 * }</pre>
 *
 * <p>The limits live in Redis, in the queue's hash tag ({@code deferlock:dq:{q}:keylimits}), so every process
 * agrees on them and a change applies to the next claim of every worker. The claim script checks them: a due job
 * whose key is at its limit is held aside (not claimed, no attempt charged) and goes back to due, in its order
 * and priority, when a job of its key ends; the workers never poll a key at its limit. A key with no limit of its
 * own and no queue-wide limit is not limited. Raising a limit lets held jobs back when a job of their key ends
 * next; lowering it lets running jobs finish (docs/delay-queue.md, "Concurrency per key").
 *
 * <p>Threadsafe; each method is one Redis command (or a few for {@link #heldByKey(int)}).
 */
public final class ConcurrencyKeys {
    /** The highest limit per key. */
    public static final int MAX_LIMIT = 10_000;

    private static final byte[] ALL = new byte[0];

    private final String queue;
    private final QueueTransport transport;
    private final QueueKeys keys;

    ConcurrencyKeys(String queue, QueueTransport transport, QueueKeys keys) {
        this.queue = queue;
        this.transport = transport;
        this.keys = keys;
    }

    /**
     * Sets the limit of every key that has none of its own: at most {@code max} jobs of one key claimed at once.
     *
     * @throws IllegalArgumentException when {@code max} is not within 1 to {@link #MAX_LIMIT}
     * @throws DelayQueueException when Redis fails
     */
    public void limit(int max) {
        set(ALL, max, null);
    }

    /**
     * Sets the limit of {@code key}, which wins over the queue-wide {@link #limit(int)}.
     *
     * @throws NullPointerException when {@code key} is null
     * @throws IllegalArgumentException when {@code key} breaks the name rule (docs/names.md) or {@code max} is not
     *     within 1 to {@link #MAX_LIMIT}
     * @throws DelayQueueException when Redis fails
     */
    public void limit(String key, int max) {
        set(requireKey(key), max, key);
    }

    /**
     * Removes the queue-wide limit: keys without a limit of their own are not limited any more (their held jobs go
     * back to due as their running jobs end).
     *
     * @return true when there was one
     * @throws DelayQueueException when Redis fails
     */
    public boolean removeLimit() {
        return transport.call("removeLimit", () -> transport.redis().hdel(keys.keyLimits(), ALL)) == 1L;
    }

    /**
     * Removes the limit of {@code key}; the queue-wide limit, if any, applies to it again.
     *
     * @return true when there was one
     * @throws DelayQueueException when Redis fails
     */
    public boolean removeLimit(String key) {
        byte[] field = requireKey(key);
        return transport.call("removeLimit", () -> transport.redis().hdel(keys.keyLimits(), field)) == 1L;
    }

    /**
     * The queue-wide limit, empty when none.
     *
     * @throws DelayQueueException when Redis fails
     */
    public OptionalInt limit() {
        return parse(transport.call("limit", () -> transport.redis().hget(keys.keyLimits(), ALL)));
    }

    /**
     * The limit that applies to {@code key}: its own, else the queue-wide one; empty when neither is set.
     *
     * @throws DelayQueueException when Redis fails
     */
    public OptionalInt limit(String key) {
        byte[] field = requireKey(key);
        List<byte[]> both = transport.call("limit", () -> transport.redis().hmget(keys.keyLimits(), field, ALL));
        OptionalInt own = parse(both.get(0));
        return own.isPresent() ? own : parse(both.get(1));
    }

    /**
     * How many jobs of {@code key} are claimed now (in flight: counted from their claim until they are acked,
     * nacked, dead-lettered, rescheduled, given back or cancelled, or a claim returns them after their visibility
     * timeout; a claim that ran out and was not returned yet still counts). One {@code HGET}.
     *
     * @throws DelayQueueException when Redis fails
     */
    public long running(String key) {
        byte[] field = requireKey(key);
        byte[] n = transport.call("running", () -> transport.redis().hget(keys.runningCounts(), field));
        return n == null ? 0 : Long.parseLong(new String(n, StandardCharsets.US_ASCII));
    }

    /**
     * How many due jobs of {@code key} are held back because it is at its limit.
     *
     * @throws DelayQueueException when Redis fails
     */
    public long held(String key) {
        byte[] field = requireKey(key);
        byte[] n = transport.call("held", () -> transport.redis().hget(keys.heldCounts(), field));
        return n == null ? 0 : Long.parseLong(new String(n, StandardCharsets.US_ASCII));
    }

    /**
     * The keys that have jobs held back and how many each, most first, at most {@code max} keys. Reads the whole
     * count hash (one field per key with held jobs): an ops call, not for every job.
     *
     * @throws IllegalArgumentException when {@code max} is not within 1 to 10,000
     * @throws DelayQueueException when Redis fails
     */
    public Map<String, Long> heldByKey(int max) {
        Require.within("max", max, 1, 10_000);
        Map<byte[], byte[]> all =
                transport.call("heldByKey", () -> transport.redis().hgetAll(keys.heldCounts()));
        List<Map.Entry<String, Long>> entries = new ArrayList<>(all.size());
        for (Map.Entry<byte[], byte[]> e : all.entrySet()) {
            long n = Long.parseLong(new String(e.getValue(), StandardCharsets.US_ASCII));
            if (n > 0) {
                entries.add(Map.entry(new String(e.getKey(), StandardCharsets.UTF_8), n));
            }
        }
        entries.sort(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        Map<String, Long> out = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : entries.subList(0, Math.min(max, entries.size()))) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    @Override
    public String toString() {
        return "ConcurrencyKeys[queue=" + queue + "]";
    }

    private void set(byte[] field, int max, String key) {
        Require.within(key == null ? "limit" : "limit of key " + Names.show(key), max, 1, MAX_LIMIT);
        byte[] value = Integer.toString(max).getBytes(StandardCharsets.US_ASCII);
        transport.call("limit", () -> transport.redis().hset(keys.keyLimits(), field, value));
    }

    private static byte[] requireKey(String key) {
        return Names.requireValid(Names.Kind.CONCURRENCY_KEY, key);
    }

    private static OptionalInt parse(byte[] value) {
        return value == null
                ? OptionalInt.empty()
                : OptionalInt.of(Integer.parseInt(new String(value, StandardCharsets.US_ASCII)));
    }
}
