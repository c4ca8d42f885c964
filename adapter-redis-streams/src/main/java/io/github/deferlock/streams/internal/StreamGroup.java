package io.github.deferlock.streams.internal;

import io.github.deferlock.redis.internal.Script;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.params.XAutoClaimParams;
import redis.clients.jedis.params.XPendingParams;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.resps.StreamEntry;
import redis.clients.jedis.resps.StreamPendingEntry;

/**
 * The Redis calls of one consumer in one group of one stream: create the group, read ({@code XREADGROUP}),
 * reclaim ({@code XAUTOCLAIM}), acknowledge, dead-letter and delete idle consumers. Stateless apart from its
 * settings; threadsafe when the client is (a pooled {@code UnifiedJedis} is).
 *
 * @param redis the client
 * @param stream the stream's key
 * @param group the consumer group
 * @param consumer this consumer's name in the group
 */
public record StreamGroup(UnifiedJedis redis, String stream, String group, String consumer) {
    private static final Logger LOG = LoggerFactory.getLogger(StreamGroup.class);
    private static final Script DELETE_IDLE =
            Script.load(r -> StreamGroup.class.getResourceAsStream(r), "delete_idle_consumers.lua");
    private static final int ACK_TRIES = 5;
    /** The id before every entry: a new group reads from it, a cursor starts at it. */
    public static final StreamEntryID START = new StreamEntryID(0, 0);

    /** One delivery: the entry and how many times it was delivered (1 for a first read). */
    public record Delivery(StreamEntry entry, long deliveries) {}

    /** A reclaim's result: the cursor to go on from ({@link #START} when the scan ended) and the entries. */
    public record Claimed(StreamEntryID cursor, List<Delivery> deliveries) {}

    /** {@code XGROUP CREATE <stream> <group> 0 MKSTREAM}; a group that exists already is fine. */
    public void ensureGroup() {
        try {
            redis.xgroupCreate(stream, group, START, true);
            LOG.debug("stream '{}': created group '{}'", stream, group);
        } catch (JedisDataException e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("BUSYGROUP")) {
                throw e;
            }
        }
    }

    /**
     * Reads up to {@code count} entries from {@code from}: {@code >} (new ones, blocking {@code blockMillis}) or an
     * id (this consumer's own pending ones, not blocking, with their delivery counts).
     */
    public List<Delivery> read(int count, StreamEntryID from, int blockMillis) {
        boolean fresh = StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY.equals(from);
        XReadGroupParams params = XReadGroupParams.xReadGroupParams().count(count);
        if (fresh) {
            params.block(blockMillis);
        }
        List<Map.Entry<String, List<StreamEntry>>> r = redis.xreadGroup(group, consumer, params, Map.of(stream, from));
        List<Delivery> out = new ArrayList<>();
        if (r == null) {
            return out;
        }
        for (Map.Entry<String, List<StreamEntry>> s : r) {
            for (StreamEntry e : s.getValue()) {
                // own pending history can list entries deleted from the stream (null fields): ack them away
                out.add(new Delivery(e, fresh ? 1 : deliveriesOf(e.getID())));
            }
        }
        return out;
    }

    /** Takes over up to {@code count} entries pending longer than {@code idleMillis}, from {@code cursor} on. */
    public Claimed claim(long idleMillis, StreamEntryID cursor, int count) {
        Map.Entry<StreamEntryID, List<StreamEntry>> r = redis.xautoclaim(
                stream,
                group,
                consumer,
                idleMillis,
                cursor,
                XAutoClaimParams.xAutoClaimParams().count(count));
        List<Delivery> out = new ArrayList<>(r.getValue().size());
        for (StreamEntry e : r.getValue()) {
            out.add(new Delivery(e, deliveriesOf(e.getID())));
        }
        return new Claimed(r.getKey(), out);
    }

    private long deliveriesOf(StreamEntryID id) {
        List<StreamPendingEntry> p = redis.xpending(stream, group, XPendingParams.xPendingParams(id, id, 1));
        return p.isEmpty() ? 1 : p.get(0).getDeliveredTimes();
    }

    /** {@code XACK}, tried up to five times with a growing pause; the last failure is thrown. */
    public void ack(StreamEntryID id) {
        long backoff = 50;
        for (int i = 1; ; i++) {
            try {
                redis.xack(stream, group, id);
                return;
            } catch (RuntimeException e) {
                if (i >= ACK_TRIES) {
                    throw e;
                }
                LOG.debug("stream '{}': XACK {} failed ({}), retrying", stream, id, e.toString());
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                backoff = Math.min(1_000, backoff * 2);
            }
        }
    }

    /** Copies {@code d} to {@code deadStream} with {@code fields} (payload, entry, reason, deliveries), then acks it. */
    public void deadLetter(Delivery d, String deadStream, Map<String, String> fields) {
        redis.xadd(deadStream, XAddParams.xAddParams(), new LinkedHashMap<>(fields));
        ack(d.entry().getID());
    }

    /**
     * {@link #deadLetter(Delivery, String, Map)} with the dead-letter fields: the payload (when not null), entry id,
     * reason and delivery count under {@code names[0..3]}.
     */
    public void deadLetter(Delivery d, String deadStream, String[] names, String payload, String reason) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (payload != null) {
            fields.put(names[0], payload);
        }
        fields.put(names[1], d.entry().getID().toString());
        fields.put(names[2], reason);
        fields.put(names[3], Long.toString(d.deliveries()));
        deadLetter(d, deadStream, fields);
    }

    /**
     * Deletes, in one script, the consumers of the group with no pending entry idle at least {@code idleMillis}
     * (-1: none), and this one too when {@code self}. Returns how many; 0 when Redis failed (logged).
     */
    public long deleteConsumers(long idleMillis, boolean self) {
        try {
            Object n = DELETE_IDLE.run(
                    redis,
                    List.of(bytes(stream)),
                    List.of(
                            bytes(group),
                            bytes(Long.toString(idleMillis < 0 ? Long.MAX_VALUE : idleMillis)),
                            bytes(self ? consumer : "")));
            long deleted = n instanceof Long l ? l : 0;
            if (deleted > 0) {
                LOG.debug("stream '{}' group '{}': deleted {} consumers with no pending entry", stream, group, deleted);
            }
            return deleted;
        } catch (RuntimeException e) {
            LOG.debug("stream '{}' group '{}': cannot delete idle consumers yet: {}", stream, group, e.toString());
            return 0;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
