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
    private final byte[] running;

    public ScheduleScripts(QueueTransport transport, QueueKeys keys, String queue) {
        this.transport = transport;
        this.keys = keys;
        this.next = utf8(QueueKeys.prefix(queue) + "schedule-next");
        this.defs = utf8(QueueKeys.prefix(queue) + "schedules");
        this.wake = utf8(QueueKeys.prefix(queue) + "schedule-wake");
        this.running = utf8(QueueKeys.prefix(queue) + "schedule-running");
    }

    /**
     * The schedule-running hash: schedule id to {@code <delay ms>|<job id>}, for a fixed-delay schedule while it
     * waits for the job of its last fire (schedule_wait.lua).
     */
    public byte[] runningKey() {
        return running;
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
     * The due schedules (at most {@code max} looked at).
     *
     * @param laterMs the earliest next slot after now, -1 when none
     * @param lookedAt how many due schedules the script looked at: those returned and the fixed-delay schedules
     *     whose wait for their job it handled itself ({@code max}: more may be due)
     */
    public record Due(long nowMs, long laterMs, int lookedAt, List<DueSchedule> schedules) {}

    /** schedule_due.lua; a fixed-delay schedule waiting for its job looks again {@code checkMs} later. */
    public Due due(int max, long checkMs) {
        List<?> r = (List<?>) transport.run(
                "scheduleTick", DUE, List.of(next, defs, running, keys.jobs()), List.of(num(max), num(checkMs)));
        List<DueSchedule> out = new ArrayList<>();
        for (int i = 3; i + 2 < r.size(); i += 3) {
            out.add(new DueSchedule(text(r.get(i)), (Long) r.get(i + 1), text(r.get(i + 2))));
        }
        return new Due((Long) r.get(0), (Long) r.get(1), ((Long) r.get(2)).intValue(), out);
    }

    /** What schedule_fire.lua did: 1 fired, 0 stale, -1 a slot after now. */
    public record Fired(long nowMs, int status, int written) {}

    /** schedule_fire.lua for a schedule that does not wait for its jobs (a rate, a cron). */
    public Fired fire(
            String id,
            long expectedNext,
            String sha1,
            long newNext,
            byte[] tail,
            List<String> jobIds,
            List<Long> slots) {
        return fire(id, expectedNext, sha1, newNext, tail, jobIds, slots, 0, 0);
    }

    /**
     * schedule_fire.lua. With {@code fixedDelayMs > 0} (one slot), the schedule then waits for the fired job and
     * looks at it {@code checkMs} later; {@code newNext} is ignored.
     */
    public Fired fire(
            String id,
            long expectedNext,
            String sha1,
            long newNext,
            byte[] tail,
            List<String> jobIds,
            List<Long> slots,
            long fixedDelayMs,
            long checkMs) {
        List<byte[]> args = new ArrayList<>(9 + 2 * slots.size());
        args.add(utf8(id));
        args.add(num(expectedNext));
        args.add(utf8(sha1));
        args.add(num(newNext));
        args.add(keys.channel());
        args.add(transport.shardedFlag());
        args.add(tail);
        args.add(num(fixedDelayMs));
        args.add(num(checkMs));
        for (int i = 0; i < slots.size(); i++) {
            args.add(utf8(jobIds.get(i)));
            args.add(num(slots.get(i)));
        }
        List<?> r = (List<?>) transport.run(
                "scheduleFire",
                FIRE,
                List.of(next, defs, keys.due(), keys.jobs(), keys.seq(), keys.stats(), running),
                args);
        return new Fired((Long) r.get(0), ((Long) r.get(1)).intValue(), ((Long) r.get(2)).intValue());
    }

    /**
     * One schedule as an upsert reads it: definition empty and next -1 when absent; {@code waitingFor} the job a
     * fixed-delay schedule waits for, else empty.
     */
    public record Current(long nowMs, String definition, long nextMs, String waitingFor) {}

    /** schedule_get.lua. */
    public Current get(String id) {
        List<?> r = (List<?>) transport.run("scheduleGet", GET, List.of(next, defs, running), List.of(utf8(id)));
        return new Current((Long) r.get(0), text(r.get(1)), (Long) r.get(2), waitedJob(text(r.get(3))));
    }

    /** The job id of a schedule-running entry ({@code <delay ms>|<job id>}), {@code ""} for {@code ""}. */
    public static String waitedJob(String entry) {
        int bar = entry.indexOf('|');
        return bar < 0 ? "" : entry.substring(bar + 1);
    }

    /**
     * What schedule_upsert.lua did: status 1 written, 0 changed since read, -2 too many schedules; {@code
     * waitingFor} the job a fixed-delay schedule still waits for, else empty.
     */
    public record Upserted(int status, String waitingFor) {}

    /** schedule_upsert.lua; {@code fixedDelayMs} the new definition's fixed delay, 0 when it has none. */
    public Upserted upsert(
            String id,
            String readSha1,
            long readNext,
            String definition,
            long newNext,
            int maxSchedules,
            long fixedDelayMs) {
        List<?> r = (List<?>) transport.run(
                "scheduleUpsert",
                UPSERT,
                List.of(next, defs, running),
                List.of(
                        utf8(id),
                        utf8(readSha1),
                        num(readNext),
                        utf8(definition),
                        num(newNext),
                        num(maxSchedules),
                        wake,
                        transport.shardedFlag(),
                        num(fixedDelayMs)));
        return new Upserted(((Long) r.get(0)).intValue(), text(r.get(1)));
    }

    /** schedule_remove.lua: true when it existed. */
    public boolean remove(String id) {
        return (Long) transport.run("scheduleRemove", REMOVE, List.of(next, defs, running), List.of(utf8(id))) == 1L;
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
