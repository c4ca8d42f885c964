package io.github.deferlock.delay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.deferlock.delay.internal.ScheduleScripts;
import io.github.deferlock.delay.internal.WakeBus;
import io.github.deferlock.delay.internal.WakeSubscriber;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.Require;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The recurring schedules of one queue ({@link DelayQueue#schedules()}): each schedule enqueues a job with its
 * payload at every slot of its {@link ScheduleSpec} (a cron expression with a time zone from {@code
 * deferlock-cron}, a {@link ScheduleSpec#fixedRate fixed rate}), or a {@link ScheduleSpec#fixedDelay fixed delay}
 * after the previous fire's job finished.
 *
 * <pre>{@code
 * queue.schedules().upsert("nightly-report", ScheduleSpec.fixedRate(Duration.ofHours(24)), new Report("daily"));
 * }</pre>
 *
 * <p>Schedules live in Redis, next to the queue's jobs (docs/queue-keys.md), so they survive restarts; the
 * queue's {@link DelayQueueWorker}s fire them: one schedule ticker per queue per process, however many workers.
 * Each slot fires once among any number of processes: a fire is one script that enqueues the slot's job and
 * moves the schedule to its next slot only if no one did it first, deciding what is due by the Redis server's
 * clock. A fired job has the id {@code <schedule id>@<slot, ISO-8601>} (e.g. {@code
 * nightly-report@2026-11-27T00:00:00Z}) and the slot as its due time; it is then an ordinary job (at least once,
 * retries, dead letters). Slots missed while no worker ran follow the schedule's {@link MissedSlots} policy.
 * A {@link ScheduleSpec#fixedDelay fixed-delay} schedule has one slot at a time: after a fire it waits until the
 * tickers find the fired job finished, then its next slot is the delay from then.
 * A fired job carries no headers ({@link DelayQueue.Builder#headers} is not applied: it would read the context of
 * the thread that upserted the schedule, not of a fire).
 *
 * <p>Why an object of its own rather than {@code queue.schedule(id, spec, payload)}: {@link DelayQueue} already has
 * {@code schedule(id, payload, Instant)}, and on a queue of {@code Object} payloads the two overloads would be
 * ambiguous; the schedules also have their own list, get and remove, like {@link DeadLetters}.
 *
 * <p>Threadsafe.
 *
 * @param <T> the payload type
 */
public final class Schedules<T> {
    private static final Logger LOG = LoggerFactory.getLogger(Schedules.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The most schedules one queue holds. */
    public static final int MAX_SCHEDULES = 10_000;
    /** Due schedules read per tick. */
    static final int TICK_BATCH = 100;
    /**
     * The longest a ticker waits between two looks at the schedules: the fallback for a lost upsert notice, and
     * how soon a queue's first schedule upserted by another process is seen (once a queue has schedules, an
     * upsert in any process wakes its tickers at once through the schedule-wake channel).
     */
    static final long MAX_TICK_MS = 5_000;
    /**
     * How often the tickers look whether the job a {@link ScheduleSpec#fixedDelay fixed-delay} schedule fired has
     * finished, while it has not: 1 s. The next fire comes the delay after the first look that finds it finished,
     * so up to this much later than the delay after its end.
     */
    public static final Duration FIXED_DELAY_CHECK = Duration.ofSeconds(1);

    private final String queue;
    private final ScheduleScripts scripts;
    private final PayloadCodec<T> codec;
    private final QueueListener listener;
    private final WakeBus bus;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private ScheduleTicker ticker; // guarded by this
    private WakeSubscriber tickerWake; // guarded by this
    private int tickerUsers; // guarded by this
    /** When a worker's idle look last found the queue without jobs and schedules ({@code nanoTime}), 0 never. */
    private LongSupplier emptyProbedAt = () -> 0;
    /** The last tick found no schedule, and no upsert was heard since. */
    private volatile boolean noneSeen;

    /** The worker's idle look tells the ticker when the queue had no schedule key ({@link DelayQueue}). */
    void emptyProbes(LongSupplier probedAt) {
        this.emptyProbedAt = probedAt;
    }

    Schedules(String queue, ScheduleScripts scripts, PayloadCodec<T> codec, QueueListener listener, WakeBus bus) {
        this.queue = queue;
        this.bus = bus;
        this.scripts = scripts;
        this.codec = codec;
        this.listener = listener;
    }

    /**
     * {@link #upsert(String, ScheduleSpec, Object, MissedSlots)} with {@link MissedSlots#fireOnce()}.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the id breaks the name rule, the spec has no slot after now or its
     *     kind cannot be read back, or the payload cannot be encoded or is over the limit
     * @throws IllegalStateException when the queue holds {@link #MAX_SCHEDULES} schedules and this id is new
     * @throws DelayQueueException when Redis fails
     */
    public ScheduleInfo upsert(String id, ScheduleSpec spec, T payload) {
        return upsert(id, spec, payload, MissedSlots.fireOnce());
    }

    /**
     * Creates the schedule {@code id}, or updates it in place. An update with the same spec and policy keeps the
     * next slot (so an application that upserts its schedules at every start neither skips nor repeats a slot);
     * one with another spec or policy starts from the spec's first slot after now (server clock). A {@link
     * ScheduleSpec#fixedDelay fixed-delay} schedule waiting for the job of its last fire goes on waiting for it
     * when updated to a fixed delay (the new delay counts from its end). The payload is encoded here, so one that
     * cannot be encoded fails now, not at fire time. Jobs already fired stay. {@code missed} does not apply to a
     * fixed delay, which has at most one fire outstanding.
     *
     * @param id the schedule id: 1 to 200 UTF-8 bytes of valid Unicode (docs/names.md)
     * @return the schedule as stored, with its next slot
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the id breaks the name rule, the spec has no slot after now or its
     *     kind cannot be read back ({@link ScheduleSpecParser}), or the payload cannot be encoded or is over the
     *     limit
     * @throws IllegalStateException when the queue holds {@link #MAX_SCHEDULES} schedules and this id is new
     * @throws DelayQueueException when Redis fails
     */
    public ScheduleInfo upsert(String id, ScheduleSpec spec, T payload, MissedSlots missed) {
        requireId(id);
        Require.notNull("spec", spec);
        Require.notNull("payload", payload);
        Require.notNull("missed", missed);
        String stored = ScheduleSpec.stored(spec);
        ScheduleSpec readBack = ScheduleSpecs.parse(stored); // what every worker will read
        String tail = new String(codec.field(Map.of(), payload), StandardCharsets.UTF_8);
        String definition = definition(stored, missed, tail);
        for (int attempt = 0; attempt < 20; attempt++) {
            ScheduleScripts.Current cur = scripts.get(id);
            boolean exists = !cur.definition().isEmpty();
            long next;
            if (exists && sameTiming(cur.definition(), stored, missed)) {
                next = cur.nextMs();
            } else {
                next = SlotPlanner.after(readBack, cur.nowMs());
                if (next < 0) {
                    throw new IllegalArgumentException("schedule '" + id + "': spec " + stored + " has no slot after "
                            + Instant.ofEpochMilli(cur.nowMs()));
                }
            }
            ScheduleScripts.Upserted u = scripts.upsert(
                    id,
                    exists ? sha1(cur.definition()) : "",
                    cur.nextMs(),
                    definition,
                    next,
                    MAX_SCHEDULES,
                    readBack instanceof FixedDelay fd ? fd.delayMs() : 0);
            int r = u.status();
            if (r == 1) {
                ScheduleTicker local;
                synchronized (this) {
                    local = ticker;
                }
                noneSeen = false;
                if (local != null) {
                    local.nudge(); // this process's ticker looks at once, subscribed or not
                }
                if (!u.waitingFor().isEmpty()) {
                    return new ScheduleInfo(id, stored, missed, Optional.empty(), Optional.of(u.waitingFor()));
                }
                return new ScheduleInfo(id, stored, missed, nextOf(next));
            }
            if (r == -2) {
                throw new IllegalStateException("queue '" + queue + "' holds " + MAX_SCHEDULES
                        + " schedules (MAX_SCHEDULES) already; schedule '" + id + "' is not added");
            }
            // fired or updated between our read and write: read again
        }
        throw new DelayQueueException(
                "schedule '" + id + "' of queue '" + queue + "' kept changing under 20 upserts; try again");
    }

    /**
     * Removes the schedule {@code id}: it fires no more. Jobs it fired stay (cancel them by id).
     *
     * @return true when it existed
     * @throws NullPointerException when {@code id} is null
     * @throws IllegalArgumentException when the id breaks the name rule
     * @throws DelayQueueException when Redis fails
     */
    public boolean remove(String id) {
        return scripts.remove(requireId(id));
    }

    /**
     * The schedule {@code id}.
     *
     * @throws NullPointerException when {@code id} is null
     * @throws IllegalArgumentException when the id breaks the name rule
     * @throws DelayQueueException when Redis fails
     */
    public Optional<ScheduleInfo> get(String id) {
        ScheduleScripts.Current cur = scripts.get(requireId(id));
        if (cur.definition().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(info(id, cur.definition(), cur.nextMs(), cur.waitingFor()));
    }

    /**
     * Every schedule of this queue, by id. Reads the whole schedules hash (and the fixed-delay schedules' waits):
     * an ops call, not one per job.
     *
     * @throws DelayQueueException when Redis fails
     */
    public List<ScheduleInfo> list() {
        return scripts.transport()
                .call("listSchedules", () -> list(scripts.transport().redis(), scripts));
    }

    /**
     * The schedules of the queue {@code name} without building a queue, for tools that watch queues they do not
     * own: as {@link #list()}.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code name} is not a valid queue name (docs/names.md)
     * @throws DelayQueueException when Redis fails
     */
    public static List<ScheduleInfo> list(UnifiedJedis redis, String name) {
        Require.notNull("redis", redis);
        Require.notNull("name", name);
        Names.requireValid(Names.Kind.QUEUE_NAME, name);
        try {
            return list(redis, new ScheduleScripts(null, null, name));
        } catch (JedisException e) {
            throw new DelayQueueException("cannot list the schedules of queue '" + name + "': " + e.getMessage(), e);
        }
    }

    private static List<ScheduleInfo> list(UnifiedJedis redis, ScheduleScripts keys) {
        Map<byte[], byte[]> defs = redis.hgetAll(keys.defsKey());
        Map<String, Long> next = new java.util.HashMap<>();
        for (redis.clients.jedis.resps.Tuple t : redis.zrangeWithScores(keys.nextKey(), 0, -1)) {
            next.put(new String(t.getBinaryElement(), StandardCharsets.UTF_8), (long) t.getScore());
        }
        Map<String, String> waits = new java.util.HashMap<>();
        for (Map.Entry<byte[], byte[]> e : redis.hgetAll(keys.runningKey()).entrySet()) {
            waits.put(
                    new String(e.getKey(), StandardCharsets.UTF_8),
                    ScheduleScripts.waitedJob(new String(e.getValue(), StandardCharsets.UTF_8)));
        }
        List<ScheduleInfo> out = new ArrayList<>(defs.size());
        for (Map.Entry<byte[], byte[]> e : defs.entrySet()) {
            String id = new String(e.getKey(), StandardCharsets.UTF_8);
            out.add(info(
                    id,
                    new String(e.getValue(), StandardCharsets.UTF_8),
                    next.getOrDefault(id, -1L),
                    waits.getOrDefault(id, "")));
        }
        out.sort((a, b) -> a.id().compareTo(b.id()));
        return out;
    }

    // ---------------------------------------------------------------- firing (the workers' ticker)

    /** Starts this queue's ticker when the first firing worker of this process starts. */
    synchronized void tickerUser(String threadName) {
        if (tickerUsers++ == 0) {
            ticker = new ScheduleTicker(queue, this::tick);
            ticker.start(threadName);
        }
    }

    /**
     * Subscribes the ticker to the schedule-wake channel, once: only a queue that has schedules pays for the
     * subscription (a queue's first schedule, upserted by another process, is seen at the next fallback look).
     */
    private synchronized void listenForUpserts() {
        if (ticker != null && tickerWake == null) {
            ScheduleTicker t = ticker;
            tickerWake = new WakeSubscriber(bus, scripts.wakeChannel(), () -> {
                noneSeen = false;
                t.nudge();
            });
            tickerWake.start();
        }
    }

    /** Stops the ticker when the last firing worker of this process stops. */
    void tickerUserGone() {
        ScheduleTicker stop = null;
        WakeSubscriber unsubscribe = null;
        synchronized (this) {
            if (tickerUsers > 0 && --tickerUsers == 0) {
                stop = ticker;
                unsubscribe = tickerWake;
                ticker = null;
                tickerWake = null;
            }
        }
        if (unsubscribe != null) {
            unsubscribe.close();
        }
        if (stop != null) {
            stop.close();
        }
    }

    /**
     * Fires the due schedules once.
     *
     * @return how long to wait before the next tick, ms (0: go on at once)
     */
    long tick() {
        long probed = emptyProbedAt.getAsLong();
        if (noneSeen && probed != 0 && System.nanoTime() - probed < TimeUnit.MILLISECONDS.toNanos(MAX_TICK_MS)) {
            return MAX_TICK_MS; // a worker's idle look just found no schedule key: no call of its own
        }
        ScheduleScripts.Due due = scripts.due(TICK_BATCH, FIXED_DELAY_CHECK.toMillis());
        noneSeen = due.schedules().isEmpty() && due.laterMs() < 0 && due.lookedAt() == 0;
        if (!due.schedules().isEmpty() || due.laterMs() >= 0) {
            listenForUpserts(); // the queue has schedules: hear other processes' upserts at once
        }
        boolean fired = false;
        boolean stale = false;
        long earliest = due.laterMs(); // the earliest next slot: -1 none
        for (ScheduleScripts.DueSchedule d : due.schedules()) {
            long next = fireOne(d, due.nowMs());
            if (next == STALE) {
                stale = true;
            } else if (next != NOT_FIRED) {
                fired = true;
                if (next >= 0 && (earliest < 0 || next < earliest)) {
                    earliest = next;
                }
            }
        }
        boolean handledWaits = due.lookedAt() > due.schedules().size(); // the script moved waiting schedules on
        if (stale || ((fired || handledWaits) && due.lookedAt() == TICK_BATCH)) {
            return 0; // read again: another process moved a schedule, or more may be due
        }
        if (earliest < 0) {
            return MAX_TICK_MS;
        }
        return Math.max(0, Math.min(MAX_TICK_MS, earliest - due.nowMs()));
    }

    /** {@link #fireOne}: the schedule was left alone (this process cannot read or plan it). */
    private static final long NOT_FIRED = Long.MIN_VALUE;
    /** {@link #fireOne}: someone fired or changed it first; read it again. */
    private static final long STALE = Long.MIN_VALUE + 1;

    /**
     * Fires one due schedule: its next slot after the fire (-1: none), {@link #NOT_FIRED} or {@link #STALE}.
     */
    private long fireOne(ScheduleScripts.DueSchedule d, long nowMs) {
        if (d.definition().isEmpty()) {
            return NOT_FIRED;
        }
        JsonNode def;
        ScheduleSpec spec;
        MissedSlots missed;
        try {
            def = JSON.readTree(d.definition());
            missed = MissedSlots.parse(def.path("missed").asText());
            spec = ScheduleSpecs.parse(def.path("spec").asText());
        } catch (Exception e) {
            String sha = sha1(d.definition());
            if (warned.add(d.id() + " " + sha)) {
                LOG.error(
                        "queue '{}': schedule '{}' cannot be read by this process and is left to the workers of"
                                + " other processes (it is not dropped): {}",
                        queue,
                        d.id(),
                        e.getMessage());
            }
            return NOT_FIRED;
        }
        if (spec instanceof FixedDelay fd) {
            return fireFixedDelay(d, def, fd, nowMs);
        }
        SlotPlanner.Plan plan;
        try {
            plan = SlotPlanner.plan(spec, missed, d.nextMs(), nowMs, MissedSlots.GRACE.toMillis());
        } catch (RuntimeException e) { // a spec that fails to compute its slots must not stop the others
            if (warned.add(d.id() + " " + sha1(d.definition()))) {
                LOG.error(
                        "queue '{}': schedule '{}' could not compute its slots and does not fire: {}",
                        queue,
                        d.id(),
                        e.toString());
            }
            return NOT_FIRED;
        }
        List<String> ids = new ArrayList<>(plan.slots().size());
        for (long slot : plan.slots()) {
            ids.add(jobId(d.id(), slot));
        }
        ScheduleScripts.Fired f = scripts.fire(
                d.id(),
                d.nextMs(),
                sha1(d.definition()),
                plan.nextMs(),
                def.path("payload").asText().getBytes(StandardCharsets.UTF_8),
                ids,
                plan.slots());
        if (f.status() != 1) {
            return STALE;
        }
        if (f.written() == ids.size()) {
            for (int i = 0; i < ids.size(); i++) {
                listener.onEnqueued(
                        queue, ids.get(i), Instant.ofEpochMilli(plan.slots().get(i)));
            }
        }
        LOG.debug("queue '{}': schedule '{}' fired {} job(s), next {}", queue, d.id(), f.written(), plan.nextMs());
        return plan.nextMs();
    }

    /**
     * Fires the one slot of a due fixed-delay schedule (its stored next slot, whatever the missed-slot policy) and
     * leaves it waiting for the job: the next look at that job {@link #FIXED_DELAY_CHECK} from now.
     */
    private long fireFixedDelay(ScheduleScripts.DueSchedule d, JsonNode def, FixedDelay spec, long nowMs) {
        String jobId = jobId(d.id(), d.nextMs());
        ScheduleScripts.Fired f = scripts.fire(
                d.id(),
                d.nextMs(),
                sha1(d.definition()),
                -1,
                def.path("payload").asText().getBytes(StandardCharsets.UTF_8),
                List.of(jobId),
                List.of(d.nextMs()),
                spec.delayMs(),
                FIXED_DELAY_CHECK.toMillis());
        if (f.status() != 1) {
            return STALE;
        }
        if (f.written() == 1) {
            listener.onEnqueued(queue, jobId, Instant.ofEpochMilli(d.nextMs()));
        }
        LOG.debug("queue '{}': schedule '{}' fired {}, waits for it to finish", queue, d.id(), jobId);
        return f.nowMs() + FIXED_DELAY_CHECK.toMillis();
    }

    /** The id of the job that schedule {@code id} fires for {@code slotMs}. */
    static String jobId(String id, long slotMs) {
        return id + "@" + Instant.ofEpochMilli(slotMs);
    }

    // ---------------------------------------------------------------- definitions

    private static String definition(String spec, MissedSlots missed, String payloadField) {
        ObjectNode n = JSON.createObjectNode();
        n.put("spec", spec);
        n.put("missed", missed.text());
        n.put("payload", payloadField);
        return n.toString();
    }

    private static boolean sameTiming(String definition, String spec, MissedSlots missed) {
        try {
            JsonNode n = JSON.readTree(definition);
            return n.path("spec").asText().equals(spec)
                    && n.path("missed").asText().equals(missed.text());
        } catch (Exception e) {
            return false;
        }
    }

    private static ScheduleInfo info(String id, String definition, long nextMs, String waitingFor) {
        String spec;
        MissedSlots missed;
        try {
            JsonNode n = JSON.readTree(definition);
            spec = n.path("spec").asText();
            missed = MissedSlots.parse(n.path("missed").asText());
        } catch (Exception e) {
            spec = "unreadable: " + e.getMessage();
            missed = MissedSlots.fireOnce();
        }
        if (!waitingFor.isEmpty()) {
            return new ScheduleInfo(id, spec, missed, Optional.empty(), Optional.of(waitingFor));
        }
        return new ScheduleInfo(id, spec, missed, nextOf(nextMs));
    }

    private static Optional<Instant> nextOf(long ms) {
        return ms < 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(ms));
    }

    /** Hex SHA-1 of the UTF-8 bytes, as Lua's {@code redis.sha1hex}. */
    static String sha1(String s) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String requireId(String id) {
        Require.notNull("id", id);
        Names.requireValid(Names.Kind.SCHEDULE_ID, id); // one rule for every name (docs/names.md)
        return id;
    }

    @Override
    public String toString() {
        return "Schedules[" + queue + "]";
    }
}
