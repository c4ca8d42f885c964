package io.github.deferlock.delay.internal;

import io.github.deferlock.redis.internal.Script;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The Lua scripts of a queue's recurring schedules, one typed method per script (docs/queue-keys.md): the only
 * code that knows their KEYS and ARGV order and the shape of their replies. Every call goes through the queue's
 * {@link QueueTransport}. Threadsafe.
 */
public final class ScheduleScripts {
    private static final Script DUE = QueueLua.load("schedule_due");
    private static final Script FIRE = QueueLua.load("schedule_fire");
    private static final Script GET = QueueLua.load("schedule_get");
    private static final Script UPSERT = QueueLua.load("schedule_upsert");
    private static final Script REMOVE = QueueLua.load("schedule_remove");

    private final QueueTransport transport;
    private final QueueKeys keys;
    private final byte[] next;
    private final byte[] defs;
    private final byte[] wake;

    public ScheduleScripts(QueueTransport transport, QueueKeys keys, String queue) {
        this.transport = transport;
        this.keys = keys;
        this.next = utf8(QueueKeys.prefix(queue) + "schedule-next");
        this.defs = utf8(QueueKeys.prefix(queue) + "schedules");
        this.wake = utf8(QueueKeys.prefix(queue) + "schedule-wake");
    }

    /** The schedule-wake channel: an upsert publishes on it, the schedule tickers listen. */
    public byte[] wakeChannel() {
        return wake;
    }

    /** The schedule-next zset (schedule id to next slot ms). */
    public byte[] nextKey() {
        return next;
    }

    /** The schedules hash (schedule id to definition). */
    public byte[] defsKey() {
        return defs;
    }

    /** The transport, for plain reads. */
    public QueueTransport transport() {
        return transport;
    }

    /** One due schedule: its id, next slot and definition (empty when missing). */
    public record DueSchedule(String id, long nextMs, String definition) {}

    /**
     * The due schedules (at most {@code max}).
     *
     * @param laterMs the earliest next slot after now, -1 when none
     */
    public record Due(long nowMs, long laterMs, List<DueSchedule> schedules) {}

    /** schedule_due.lua. */
    public Due due(int max) {
        List<?> r = (List<?>) transport.run("scheduleTick", DUE, List.of(next, defs), List.of(num(max)));
        List<DueSchedule> out = new ArrayList<>();
        for (int i = 2; i + 2 < r.size(); i += 3) {
            out.add(new DueSchedule(text(r.get(i)), (Long) r.get(i + 1), text(r.get(i + 2))));
        }
        return new Due((Long) r.get(0), (Long) r.get(1), out);
    }

    /** What schedule_fire.lua did: 1 fired, 0 stale, -1 a slot after now. */
    public record Fired(long nowMs, int status, int written) {}

    /** schedule_fire.lua. */
    public Fired fire(
            String id,
            long expectedNext,
            String sha1,
            long newNext,
            byte[] tail,
            List<String> jobIds,
            List<Long> slots) {
        List<byte[]> args = new ArrayList<>(7 + 2 * slots.size());
        args.add(utf8(id));
        args.add(num(expectedNext));
        args.add(utf8(sha1));
        args.add(num(newNext));
        args.add(keys.channel());
        args.add(transport.shardedFlag());
        args.add(tail);
        for (int i = 0; i < slots.size(); i++) {
            args.add(utf8(jobIds.get(i)));
            args.add(num(slots.get(i)));
        }
        List<?> r = (List<?>) transport.run(
                "scheduleFire", FIRE, List.of(next, defs, keys.due(), keys.jobs(), keys.seq(), keys.stats()), args);
        return new Fired((Long) r.get(0), ((Long) r.get(1)).intValue(), ((Long) r.get(2)).intValue());
    }

    /** One schedule as an upsert reads it: definition empty and next -1 when absent. */
    public record Current(long nowMs, String definition, long nextMs) {}

    /** schedule_get.lua. */
    public Current get(String id) {
        List<?> r = (List<?>) transport.run("scheduleGet", GET, List.of(next, defs), List.of(utf8(id)));
        return new Current((Long) r.get(0), text(r.get(1)), (Long) r.get(2));
    }

    /** schedule_upsert.lua: 1 written, 0 changed since read, -2 too many schedules. */
    public int upsert(String id, String readSha1, long readNext, String definition, long newNext, int maxSchedules) {
        Object r = transport.run(
                "scheduleUpsert",
                UPSERT,
                List.of(next, defs),
                List.of(
                        utf8(id),
                        utf8(readSha1),
                        num(readNext),
                        utf8(definition),
                        num(newNext),
                        num(maxSchedules),
                        wake,
                        transport.shardedFlag()));
        return ((Long) r).intValue();
    }

    /** schedule_remove.lua: true when it existed. */
    public boolean remove(String id) {
        return (Long) transport.run("scheduleRemove", REMOVE, List.of(next, defs), List.of(utf8(id))) == 1L;
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }

    private static byte[] num(long n) {
        return utf8(Long.toString(n));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
