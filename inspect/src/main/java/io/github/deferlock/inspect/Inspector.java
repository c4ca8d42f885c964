package io.github.deferlock.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.JobInfo;
import io.github.deferlock.delay.QueueRateLimit;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.delay.ScheduleInfo;
import io.github.deferlock.delay.Schedules;
import io.github.deferlock.inspect.internal.EnvelopeText;
import io.github.deferlock.inspect.internal.InspectLua;
import io.github.deferlock.inspect.internal.LockKeys;
import io.github.deferlock.inspect.internal.Utf8;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.QueueKeyspace;
import io.github.deferlock.redis.internal.Registry;
import io.github.deferlock.redis.internal.Require;
import io.github.deferlock.redis.internal.Script;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * The read model and the safe actions of the ops tools (the {@code deferlock} command-line tool and the
 * dashboard): which queues, deferral queues and lock prefixes exist (from the registry, without {@code SCAN}),
 * a queue's counts, its dead letters page by page, one job, the locks under a prefix, and actions that name
 * what they touch — requeue or purge the given dead-letter ids, cancel a job — plus requeue-all, which
 * returns how many it moved.
 *
 * <pre>{@code
 * Inspector inspector = Inspector.builder(redis).build();
 * for (RegistryEntry e : inspector.registered()) { ... }
 * QueueStats stats = inspector.queueStats("emails");
 * }</pre>
 *
 * <p>Works on standalone, Sentinel and Cluster clients (every queue call is single-slot). Reading needs
 * {@code ~deferlock:*} (and {@code ~<lock prefix>*} for locks); the actions need write access to the same.
 * Payloads and error texts are returned as stored: they are attacker input, and a page or terminal must
 * escape them. Threadsafe; it holds no connection and does not close the client.
 */
public final class Inspector {
    private static final Logger LOG = LoggerFactory.getLogger(Inspector.class);

    private static final Script DEAD_PAGE = InspectLua.load("dead_page");
    private static final Script ENVELOPE_START = InspectLua.load("envelope_start");
    private static final Script PURGE_IDS = InspectLua.load("purge_ids");
    private static final Script LOCK_INFO = InspectLua.load("lock_info");
    private static final Script PERMITS_INFO = InspectLua.load("permits_info");
    private static final Script REGISTRY_CLEAN = InspectLua.load("registry_clean");

    /** The largest page of dead letters. */
    public static final int MAX_PAGE = 1000;
    /** The most ids one requeue or purge call takes. */
    public static final int MAX_IDS = 500;
    /** The most minutes one {@link #conflicts} call reads. */
    public static final int MAX_CONFLICT_MINUTES = 15;
    /** The most locks one {@link #conflicts} call returns. */
    public static final int MAX_CONFLICT_TOP = 100;
    /** The most locks one {@link #locks} call returns. */
    public static final int MAX_LOCKS = 10_000;
    /** The audit stream of the ops tools' actions ({@link #audit}, {@link #auditTrail}). */
    public static final String AUDIT_KEY = "deferlock:audit";
    /** About how many records the audit stream keeps ({@code XADD … MAXLEN ~}): older ones are trimmed. */
    public static final int AUDIT_MAX_LEN = 10_000;
    /** The most characters an audit record keeps of each text (actor, queue, outcome, …). */
    public static final int AUDIT_TEXT_CHARS = 1000;
    /** The most bytes of UTF-8 of job ids an audit record keeps; past them only the count. */
    public static final int AUDIT_ID_BYTES = 2048;

    private static final com.fasterxml.jackson.databind.ObjectMapper AUDIT_JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private final UnifiedJedis redis;
    private final Duration staleAfter;
    private final int previewBytes;
    private final List<String> lockPrefixes;
    private final Clock clock;

    private Inspector(Builder b) {
        this.redis = b.redis;
        this.staleAfter = Require.orDefault(b.staleAfter, Builder.DEFAULT_STALE_AFTER);
        this.previewBytes = b.previewBytes != null ? b.previewBytes : Builder.DEFAULT_PREVIEW_BYTES;
        Set<String> prefixes = new LinkedHashSet<>();
        prefixes.add(Builder.DEFAULT_LOCK_PREFIX);
        prefixes.addAll(b.lockPrefixes);
        this.lockPrefixes = List.copyOf(prefixes);
        this.clock = Require.orDefault(b.clock, Clock.systemUTC());
    }

    /**
     * Starts a builder.
     *
     * @param redis the client (standalone, Sentinel or Cluster); the inspector does not close it
     * @throws NullPointerException when {@code redis} is null
     */
    public static Builder builder(UnifiedJedis redis) {
        return new Builder(redis);
    }

    // ---------------------------------------------------------------- registry

    /**
     * Everything that announced itself and was seen within the staleness limit: queues and deferral queues
     * from {@code deferlock:registry}, lock prefixes from {@code <prefix>registry} of {@code lock:} and of the
     * prefixes given to the builder. Sorted by kind, then name. Entries older than the limit are left out and
     * deleted (unless refreshed meanwhile; a reader without write access just leaves them). A deferral queue
     * is listed once, as {@link EntryKind#DEFERRALS}.
     *
     * @throws InspectException when Redis fails
     */
    public List<RegistryEntry> registered() {
        long oldest = clock.millis() - staleAfter.toMillis();
        List<RegistryEntry> out = new ArrayList<>(readRegistry(Registry.QUEUE_REGISTRY, oldest));
        for (String p : lockPrefixes) {
            out.addAll(readRegistry(Registry.lockRegistry(p), oldest));
        }
        out.sort(Comparator.comparing(RegistryEntry::kind).thenComparing(RegistryEntry::name));
        return out;
    }

    /**
     * The live entries of one registry hash, deleting the stale ones. A deferral queue is announced as such
     * when its worker starts and then kept alive by the worker as a queue, so a {@code deferrals:} entry of
     * any age turns a live queue of the same name into a deferral queue, and is deleted only with it.
     */
    private List<RegistryEntry> readRegistry(String key, long oldest) {
        Map<byte[], byte[]> all = call("read the registry " + key, () -> redis.hgetAll(bytes(key)));
        Map<String, Registry.Entry> fresh = new TreeMap<>();
        Map<String, byte[][]> deferrals = new TreeMap<>(); // name -> {field, value}
        List<byte[]> stale = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> f : all.entrySet()) {
            Optional<Registry.Entry> parsed = Registry.parse(f.getKey(), f.getValue());
            if (parsed.isEmpty()) {
                continue;
            }
            Registry.Entry e = parsed.get();
            if (e.kind() == Registry.Kind.DEFERRALS) {
                deferrals.put(e.name(), new byte[][] {f.getKey(), f.getValue()});
            }
            if (e.lastSeenMillis() >= oldest) {
                fresh.merge(e.kind().code() + ":" + e.name(), e, (a, b) -> a);
            } else if (e.kind() != Registry.Kind.DEFERRALS) {
                stale.add(f.getKey());
                stale.add(f.getValue());
            }
        }
        Map<String, RegistryEntry> live = new TreeMap<>();
        for (Registry.Entry e : fresh.values()) {
            EntryKind kind = kindOf(e.kind());
            if (kind == EntryKind.QUEUE && deferrals.containsKey(e.name())) {
                kind = EntryKind.DEFERRALS;
            }
            RegistryEntry entry = new RegistryEntry(kind, e.name(), Instant.ofEpochMilli(e.lastSeenMillis()));
            live.merge(kind + ":" + e.name(), entry, Inspector::later);
        }
        for (Map.Entry<String, byte[][]> d : deferrals.entrySet()) {
            if (!live.containsKey(EntryKind.DEFERRALS + ":" + d.getKey())) {
                stale.add(d.getValue()[0]);
                stale.add(d.getValue()[1]);
            }
        }
        if (!stale.isEmpty()) {
            clean(key, stale);
        }
        return List.copyOf(live.values());
    }

    private static RegistryEntry later(RegistryEntry a, RegistryEntry b) {
        return a.lastSeen().isAfter(b.lastSeen()) ? a : b;
    }

    private void clean(String key, List<byte[]> fieldsAndValues) {
        try {
            REGISTRY_CLEAN.run(redis, List.of(bytes(key)), fieldsAndValues);
        } catch (JedisException e) {
            LOG.debug("could not delete stale registry entries of {}", key, e);
        }
    }

    private static EntryKind kindOf(Registry.Kind kind) {
        return switch (kind) {
            case QUEUE -> EntryKind.QUEUE;
            case DEFERRALS -> EntryKind.DEFERRALS;
            case LOCK_PREFIX -> EntryKind.LOCK_PREFIX;
        };
    }

    // ---------------------------------------------------------------- queues

    /**
     * One queue's counts and counters: {@link DelayQueue#stats(UnifiedJedis, String)}, one read-only script call.
     * A queue that does not exist has every count zero.
     *
     * @throws IllegalArgumentException when {@code queue} is not a valid queue name (docs/names.md)
     * @throws InspectException when Redis fails
     */
    public QueueStats queueStats(String queue) {
        queuePrefix(queue); // the inspector's own name check and wording
        return call("read the stats of queue '" + queue + "'", () -> DelayQueue.stats(redis, queue));
    }

    /**
     * A queue's recurring schedules, by id, with their spec text, missed-slot policy and next fire time ({@link
     * Schedules#list(UnifiedJedis, String)}: one {@code HGETALL} and one {@code ZRANGE}). The spec is shown as
     * stored, also when this process has no parser for its kind.
     *
     * @throws IllegalArgumentException when {@code queue} is not a valid queue name (docs/names.md)
     * @throws InspectException when Redis fails
     */
    public List<ScheduleInfo> schedules(String queue) {
        queuePrefix(queue);
        return call("list the schedules of queue '" + queue + "'", () -> Schedules.list(redis, queue));
    }

    /**
     * Whether {@code queue} exists: it announced itself in the registry (a worker or deferral worker ran, at
     * any time since the entry was last cleaned) or it holds or ever held a job ({@link QueueStats#enqueued()},
     * or any job due, in flight or dead). A name that is neither is most likely a typo: the ops tools say so
     * rather than show zeros. One stats script call, then up to one {@code HMGET} of the registry.
     *
     * @param stats the queue's stats, read just before
     * @throws IllegalArgumentException when {@code stats} is of another queue
     * @throws InspectException when Redis fails
     */
    public boolean queueExists(QueueStats stats) {
        Require.notNull("stats", stats);
        if (stats.enqueued() > 0 || stats.waiting() > 0 || stats.inFlight() > 0 || stats.dead() > 0) {
            return true;
        }
        String queue = stats.queue();
        List<byte[]> found = call(
                "read the registry " + Registry.QUEUE_REGISTRY,
                () -> redis.hmget(
                        bytes(Registry.QUEUE_REGISTRY),
                        bytes(Registry.field(Registry.Kind.QUEUE, queue)),
                        bytes(Registry.field(Registry.Kind.DEFERRALS, queue))));
        return found.stream().anyMatch(v -> v != null);
    }

    /**
     * A page of a queue's dead letters, oldest first.
     *
     * @param offset how many of the oldest to skip, at least 0
     * @param limit how many at most, within [1, {@value #MAX_PAGE}]
     * @throws IllegalArgumentException when the queue name, offset or limit is invalid
     * @throws InspectException when Redis fails
     */
    public DeadLetterPage deadLetters(String queue, long offset, int limit) {
        String p = queuePrefix(queue);
        Require.atLeast("offset", offset, 0);
        Require.within("limit", limit, 1, MAX_PAGE);
        List<?> r = (List<?>) call(
                "read the dead letters of queue '" + queue + "'",
                () -> DEAD_PAGE.run(
                        redis,
                        List.of(bytes(p + "dead"), bytes(p + "jobs"), bytes(p + "errors")),
                        List.of(num(offset), num(limit), num(previewBytes))));
        List<DeadLetterView> items = new ArrayList<>();
        for (int i = 1; i + 5 < r.size(); i += 6) {
            String id = text(r.get(i));
            byte[] head = (byte[]) r.get(i + 1);
            String error = text(r.get(i + 4));
            Instant died = Instant.ofEpochMilli((Long) r.get(i + 5));
            int attempts = head.length == 0 ? 0 : EnvelopeText.parse(head).attempts(); // empty: envelope gone
            items.add(
                    new DeadLetterView(id, attempts, error, died, preview((byte[]) r.get(i + 2), (Long) r.get(i + 3))));
        }
        return new DeadLetterPage(queue, (Long) r.get(0), offset, items);
    }

    /**
     * One job: its state, attempts, times, last error, priority and progress from {@link DelayQueue#get(String)},
     * and the start of its payload.
     *
     * @return the job, or empty when the queue has no job with this id
     * @throws IllegalArgumentException when the queue name or id is invalid (docs/names.md)
     * @throws InspectException when Redis fails
     */
    public Optional<JobView> job(String queue, String id) {
        DelayQueue<JsonNode> q = queue(queue);
        Optional<JobInfo> info = call("read job '" + id + "' of queue '" + queue + "'", () -> q.get(id));
        if (info.isEmpty()) {
            return Optional.empty();
        }
        String p = queuePrefix(queue);
        List<?> r = (List<?>) call(
                "read job '" + id + "' of queue '" + queue + "'",
                () -> ENVELOPE_START.run(redis, List.of(bytes(p + "jobs")), List.of(bytes(id), num(previewBytes))));
        PayloadPreview payload = r.isEmpty()
                ? new PayloadPreview("", 0, false) // acked or cancelled between the two reads
                : preview((byte[]) r.get(1), (Long) r.get(2));
        JobInfo j = info.get();
        return Optional.of(new JobView(
                queue,
                id,
                j.state(),
                j.attempts(),
                j.dueAt(),
                j.visibleUntil(),
                j.diedAt(),
                j.lastError(),
                j.headers(),
                payload,
                j.priority(),
                j.progress()));
    }

    private PayloadPreview preview(byte[] start, long totalBytes) {
        String text = Utf8.prefix(start, previewBytes);
        return new PayloadPreview(text, totalBytes, text.getBytes(StandardCharsets.UTF_8).length < totalBytes);
    }

    // ---------------------------------------------------------------- actions

    /**
     * Moves the given dead letters, and only those, back to due now with their attempts reset.
     *
     * @param ids at most {@value #MAX_IDS} job ids
     * @return which ids were requeued and which were not dead letters (or did not exist)
     * @throws IllegalArgumentException when the queue name or an id is invalid, or there are too many ids
     * @throws InspectException when Redis fails
     */
    public IdActionResult requeueDead(String queue, List<String> ids) {
        DelayQueue<JsonNode> q = queue(queue);
        checkIds(ids);
        List<String> applied = new ArrayList<>();
        List<String> notFound = new ArrayList<>();
        for (String id : new LinkedHashSet<>(ids)) {
            boolean moved = call("requeue dead letter '" + id + "' of queue '" + queue + "'", () -> q.deadLetters()
                    .requeue(id));
            (moved ? applied : notFound).add(id);
        }
        return new IdActionResult(applied, notFound);
    }

    /**
     * Deletes the given dead letters, and only those; a job that is not dead is left alone.
     *
     * @param ids at most {@value #MAX_IDS} job ids
     * @return which ids were purged and which were not dead letters (or did not exist)
     * @throws IllegalArgumentException when the queue name or an id is invalid, or there are too many ids
     * @throws InspectException when Redis fails
     */
    public IdActionResult purgeDead(String queue, List<String> ids) {
        String p = queuePrefix(queue);
        checkIds(ids);
        List<String> unique = List.copyOf(new LinkedHashSet<>(ids));
        List<byte[]> args = new ArrayList<>(unique.size());
        for (String id : unique) {
            args.add(bytes(id));
        }
        List<?> r = (List<?>) call(
                "purge dead letters of queue '" + queue + "'",
                () -> PURGE_IDS.run(redis, List.of(bytes(p + "dead"), bytes(p + "jobs"), bytes(p + "errors")), args));
        List<String> applied = new ArrayList<>();
        List<String> notFound = new ArrayList<>();
        for (int i = 0; i < unique.size(); i++) {
            ((Long) r.get(i) == 1L ? applied : notFound).add(unique.get(i));
        }
        return new IdActionResult(applied, notFound);
    }

    /**
     * Deletes one job in any state ({@link DelayQueue#cancel(String)}).
     *
     * @return true when the job existed
     * @throws IllegalArgumentException when the queue name or id is invalid
     * @throws InspectException when Redis fails
     */
    public boolean cancel(String queue, String id) {
        DelayQueue<JsonNode> q = queue(queue);
        return call("cancel job '" + id + "' of queue '" + queue + "'", () -> q.cancel(id));
    }

    /**
     * Moves every dead letter of the queue back to due now ({@link io.github.deferlock.delay.DeadLetters#requeueAll()}). Callers that
     * ask a person first should show {@link QueueStats#dead()} and have it confirmed.
     *
     * @return how many were moved
     * @throws IllegalArgumentException when the queue name is invalid
     * @throws InspectException when Redis fails
     */
    public long requeueAllDead(String queue) {
        DelayQueue<JsonNode> q = queue(queue);
        return call("requeue all dead letters of queue '" + queue + "'", () -> q.deadLetters()
                .requeueAll());
    }

    /**
     * Pauses the queue ({@link DelayQueue#pause()}): no worker of any process claims a job until {@link #resume};
     * jobs already claimed finish, enqueues go on. {@link QueueStats#paused()} shows the state.
     *
     * @return true when this call paused it; false when it was paused already
     * @throws IllegalArgumentException when the queue name is invalid
     * @throws InspectException when Redis fails
     */
    public boolean pause(String queue) {
        DelayQueue<JsonNode> q = queue(queue);
        return call("pause queue '" + queue + "'", q::pause);
    }

    /**
     * Whether the queue is paused ({@link DelayQueue#isPaused()}): one {@code EXISTS}, for listings that show
     * many queues without reading their stats.
     *
     * @throws IllegalArgumentException when the queue name is invalid
     * @throws InspectException when Redis fails
     */
    public boolean isPaused(String queue) {
        DelayQueue<JsonNode> q = queue(queue);
        return call("read the paused state of queue '" + queue + "'", q::isPaused);
    }

    /**
     * The concurrency keys of a queue that have jobs held back because the key is at its limit ({@link
     * io.github.deferlock.delay.ConcurrencyKeys#heldByKey(int)}), most held first, at most {@code max}: for each its
     * held count, the jobs of the key claimed now, and the limit that applies to it.
     *
     * @throws IllegalArgumentException when the queue name is invalid or {@code max} is not within 1 to 10,000
     * @throws InspectException when Redis fails
     */
    public List<HeldKey> heldKeys(String queue, int max) {
        DelayQueue<JsonNode> q = queue(queue);
        return call("read the held keys of queue '" + queue + "'", () -> {
            List<HeldKey> out = new java.util.ArrayList<>();
            for (java.util.Map.Entry<String, Long> e :
                    q.concurrencyKeys().heldByKey(max).entrySet()) {
                java.util.OptionalInt limit = q.concurrencyKeys().limit(e.getKey());
                out.add(new HeldKey(
                        e.getKey(),
                        e.getValue(),
                        q.concurrencyKeys().running(e.getKey()),
                        limit.isPresent() ? limit.getAsInt() : -1));
            }
            return out;
        });
    }

    /**
     * One concurrency key with held jobs ({@link #heldKeys(String, int)}).
     *
     * @param key the concurrency key
     * @param held how many of its due jobs are held back
     * @param running how many of its jobs are claimed now
     * @param limit the limit that applies to it, -1 when none
     */
    public record HeldKey(String key, long held, long running, int limit) {}

    /**
     * Resumes a paused queue ({@link DelayQueue#resume()}): its workers claim again at once.
     *
     * @return true when this call resumed it; false when it was not paused
     * @throws IllegalArgumentException when the queue name is invalid
     * @throws InspectException when Redis fails
     */
    public boolean resume(String queue) {
        DelayQueue<JsonNode> q = queue(queue);
        return call("resume queue '" + queue + "'", q::resume);
    }

    /**
     * The queue's rate limit ({@link DelayQueue#rateLimit()}), if it has one: one {@code GET}.
     *
     * @throws IllegalArgumentException when the queue name is invalid
     * @throws InspectException when Redis fails
     */
    public Optional<QueueRateLimit> rateLimit(String queue) {
        DelayQueue<JsonNode> q = queue(queue);
        return call("read the rate limit of queue '" + queue + "'", () -> q.rateLimit());
    }

    /**
     * Limits the queue to {@code limit} for every process ({@link DelayQueue#rateLimit(QueueRateLimit)}): at most
     * {@code limit.rate()} job starts per {@code limit.interval()}; jobs over it stay due and spend no attempt.
     *
     * @return true when this call changed the limit
     * @throws NullPointerException when {@code limit} is null
     * @throws IllegalArgumentException when the queue name is invalid
     * @throws InspectException when Redis fails
     */
    public boolean setRateLimit(String queue, QueueRateLimit limit) {
        Require.notNull("limit", limit);
        DelayQueue<JsonNode> q = queue(queue);
        return call("set the rate limit of queue '" + queue + "'", () -> q.rateLimit(limit));
    }

    /**
     * Removes the queue's rate limit ({@link DelayQueue#removeRateLimit()}): its workers claim full batches again
     * at once.
     *
     * @return true when this call removed a limit; false when the queue had none
     * @throws IllegalArgumentException when the queue name is invalid
     * @throws InspectException when Redis fails
     */
    public boolean removeRateLimit(String queue) {
        DelayQueue<JsonNode> q = queue(queue);
        return call("remove the rate limit of queue '" + queue + "'", q::removeRateLimit);
    }

    // ---------------------------------------------------------------- audit

    /**
     * Adds one record to the audit stream {@value #AUDIT_KEY} ({@code XADD … MAXLEN ~ }{@value #AUDIT_MAX_LEN}):
     * one key, so it works on a Cluster, under {@code deferlock:}, so the service's ACL pattern covers it. The
     * time is the server's (the entry id). Each text is kept to {@value #AUDIT_TEXT_CHARS} characters and the ids
     * to {@value #AUDIT_ID_BYTES} bytes of UTF-8 (then only their count). Texts are stored as given: a reader
     * escapes them ({@link AuditRecord#logLine()}).
     *
     * @param source the tool, e.g. {@code "cli"}
     * @param actor who
     * @param from where (host, client address)
     * @param action what
     * @param queue the queue acted on, empty when none
     * @param ids the job ids named, empty when none
     * @param outcome how it ended
     * @return the record as stored, with its id and time
     * @throws NullPointerException when an argument is null
     * @throws InspectException when Redis fails
     */
    public AuditRecord audit(
            String source, String actor, String from, String action, String queue, List<String> ids, String outcome) {
        Require.notNull("ids", ids);
        List<String> kept = new ArrayList<>();
        int bytes = 0;
        for (String id : ids) {
            bytes += bytes(Require.notNull("id", id)).length;
            if (bytes > AUDIT_ID_BYTES) {
                break;
            }
            kept.add(id);
        }
        Map<String, String> fields = new java.util.LinkedHashMap<>();
        fields.put("source", cut(Require.notNull("source", source)));
        fields.put("actor", cut(Require.notNull("actor", actor)));
        fields.put("from", cut(Require.notNull("from", from)));
        fields.put("action", cut(Require.notNull("action", action)));
        fields.put("queue", cut(Require.notNull("queue", queue)));
        fields.put("ids", AUDIT_JSON.valueToTree(kept).toString());
        fields.put("idCount", Integer.toString(ids.size()));
        fields.put("outcome", cut(Require.notNull("outcome", outcome)));
        StreamEntryID id = call(
                "write the audit record to " + AUDIT_KEY,
                () -> redis.xadd(
                        AUDIT_KEY, XAddParams.xAddParams().maxLen(AUDIT_MAX_LEN).approximateTrimming(), fields));
        return auditRecord(id, fields);
    }

    /**
     * The newest records of the audit stream {@value #AUDIT_KEY}, newest first: one {@code XREVRANGE … COUNT}.
     *
     * @param limit how many at most, 1 to {@value #MAX_PAGE}
     * @throws IllegalArgumentException when {@code limit} is out of range
     * @throws InspectException when Redis fails
     */
    public List<AuditRecord> auditTrail(int limit) {
        Require.within("limit", limit, 1, MAX_PAGE);
        return call("read the audit stream " + AUDIT_KEY, () -> {
            List<AuditRecord> out = new ArrayList<>();
            for (StreamEntry e : redis.xrevrange(AUDIT_KEY, "+", "-", limit)) {
                out.add(auditRecord(e.getID(), e.getFields()));
            }
            return out;
        });
    }

    private static AuditRecord auditRecord(StreamEntryID id, Map<String, String> f) {
        List<String> ids = new ArrayList<>();
        try {
            for (JsonNode n : AUDIT_JSON.readTree(f.getOrDefault("ids", "[]"))) {
                ids.add(n.asText());
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            ids.add(f.get("ids")); // written by something else: shown as it is
        }
        int count;
        try {
            count = Math.max(ids.size(), Integer.parseInt(f.getOrDefault("idCount", "0")));
        } catch (NumberFormatException e) {
            count = ids.size();
        }
        return new AuditRecord(
                id.toString(),
                Instant.ofEpochMilli(id.getTime()),
                f.getOrDefault("source", ""),
                f.getOrDefault("actor", ""),
                f.getOrDefault("from", ""),
                f.getOrDefault("action", ""),
                f.getOrDefault("queue", ""),
                ids,
                count,
                f.getOrDefault("outcome", ""));
    }

    private static String cut(String s) {
        return s.length() <= AUDIT_TEXT_CHARS ? s : s.substring(0, AUDIT_TEXT_CHARS - 1) + "\u2026";
    }

    private static void checkIds(List<String> ids) {
        Require.notNull("ids", ids);
        Require.within("number of ids", ids.size(), 1, MAX_IDS);
        for (String id : ids) {
            Names.requireValid(Names.Kind.JOB_ID, Require.notNull("id", id));
        }
    }

    // ---------------------------------------------------------------- locks

    /**
     * The held locks under {@code prefix} (found with {@code SCAN}, on every master of a cluster), sorted by
     * name. The scan stops once more than {@code limit} are found, so when {@link LockPage#more()} is true the
     * page holds the first ones the scan met, not the first by name. Keys that vanish between the scan and the
     * read are left out. Its cost grows with the whole keyspace (one {@code SCAN} call per {@value
     * LockScan#SCAN_COUNT} keys or so): a caller that must bound its work per call uses {@link #lockScan}.
     *
     * @param limit how many locks at most, within [1, {@value #MAX_LOCKS}]
     * @throws IllegalArgumentException when the prefix holds a brace or the limit is out of range
     * @throws InspectException when Redis fails
     */
    public LockPage locks(String prefix, int limit) {
        LockScan scan = lockScan(prefix, limit);
        while (!scan.step(Integer.MAX_VALUE)) {
            // one step walks to the end
        }
        return scan.read();
    }

    /**
     * A walk over the lock keys under {@code prefix} to be made in budgeted steps ({@link LockScan#step}), then
     * read ({@link LockScan#read}). Sends nothing to Redis.
     *
     * @param limit how many locks at most, within [1, {@value #MAX_LOCKS}]
     * @throws IllegalArgumentException when the prefix holds a brace or the limit is out of range
     */
    public LockScan lockScan(String prefix, int limit) {
        checkPrefix(prefix);
        Require.within("limit", limit, 1, MAX_LOCKS);
        return new LockScan(this, redis, prefix, limit);
    }

    /**
     * One lock by name: free or held, with its fencing counter and the work parked behind it (ordered DEFER:
     * how many items, and the age of the oldest).
     *
     * @return the lock, or empty when it is free and was never locked (no key, no counter) and nothing is parked
     * @throws IllegalArgumentException when the prefix holds a brace or the name is invalid (docs/names.md)
     * @throws InspectException when Redis fails
     */
    public Optional<LockView> lock(String prefix, String name) {
        checkPrefix(prefix);
        Require.notNull("name", name);
        LockView v = readLock(prefix, name, LockKeys.lockKey(prefix, name));
        return v.held() || v.waiters() || v.fencingCounter().isPresent() || v.parked() > 0
                ? Optional.of(v)
                : Optional.empty();
    }

    /**
     * The most contended locks under {@code prefix} over the last {@code minutes} minutes (the current minute
     * included), from the per-minute conflict buckets that lock-retry-integration keeps (docs/ops.md,
     * "Conflict stats"), with each lock's waiters, parked items, holder and remaining lease now. Bounded: {@code
     * 3 × minutes} bucket reads of at most {@code top} members each, then one read per lock shown; no scan.
     *
     * @param minutes how many minute buckets, within [1, {@value #MAX_CONFLICT_MINUTES}]
     * @param top how many locks at most, within [1, {@value #MAX_CONFLICT_TOP}]
     * @throws IllegalArgumentException when the prefix holds a brace or a bound is out of range
     * @throws InspectException when Redis fails
     */
    public ConflictReport conflicts(String prefix, int minutes, int top) {
        checkPrefix(prefix);
        Require.within("minutes", minutes, 1, MAX_CONFLICT_MINUTES);
        Require.within("top", top, 1, MAX_CONFLICT_TOP);
        return ConflictRead.read(redis, prefix, minutes, top, clock.instant());
    }

    /**
     * One permits name ({@code RedisLocks.permits}): its live holders by slot (slot, fencing token, remaining
     * lease), the limit they were granted under, the queued waiters and the fencing counter. One read-only
     * script call, bounded by the limit.
     *
     * @return the permits, or empty when the name has no live holder, no waiter and no fencing counter, or its
     *     key is held as a lock ({@link #lock})
     * @throws IllegalArgumentException when the prefix holds a brace or the name is invalid (docs/names.md)
     * @throws InspectException when Redis fails
     */
    public Optional<PermitsView> permits(String prefix, String name) {
        checkPrefix(prefix);
        Require.notNull("name", name);
        String key = LockKeys.lockKey(prefix, name);
        List<?> r = (List<?>) call(
                "read permits '" + name + "' under '" + prefix + "'",
                () -> PERMITS_INFO.run(
                        redis,
                        List.of(
                                bytes(key),
                                bytes(key + ":permits"),
                                bytes(key + ":waiters"),
                                bytes(LockKeys.fenceKey(key))),
                        List.of()));
        String type = text(r.get(0));
        long limit = (Long) r.get(1);
        long waiters = (Long) r.get(2);
        String fence = text(r.get(3));
        if ("string".equals(type)) {
            return Optional.empty();
        }
        List<PermitsView.Holder> holders = new ArrayList<>();
        for (int i = 4; i + 2 < r.size(); i += 3) {
            holders.add(new PermitsView.Holder(
                    ((Long) r.get(i)).intValue(), (Long) r.get(i + 1), Duration.ofMillis(Math.max(0, (Long)
                            r.get(i + 2)))));
        }
        holders.sort(Comparator.comparingInt(PermitsView.Holder::slot));
        OptionalLong counter = OptionalLong.empty();
        try {
            counter = fence.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(fence));
        } catch (NumberFormatException e) {
            LOG.debug("fencing counter of {} is not a number: {}", key, fence);
        }
        if (holders.isEmpty() && waiters == 0 && counter.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PermitsView(
                prefix,
                name,
                key,
                holders.isEmpty() || limit < 1 ? OptionalInt.empty() : OptionalInt.of((int) limit),
                holders,
                waiters,
                counter));
    }

    LockView readLock(String prefix, String name, String key) {
        List<?> r = (List<?>) call(
                "read lock '" + name + "' under '" + prefix + "'",
                () -> LOCK_INFO.run(
                        redis,
                        List.of(
                                bytes(key),
                                bytes(LockKeys.fenceKey(key)),
                                bytes(LockKeys.parkedKey(key)),
                                bytes(LockKeys.parkedItemsKey(key)),
                                bytes(key + ":permits")),
                        List.of()));
        String type = text(r.get(0));
        String value = text(r.get(1));
        long pttl = (Long) r.get(2);
        String fence = text(r.get(3));
        long parked = r.size() > 4 ? (Long) r.get(4) : 0;
        long parkedSince = r.size() > 5 ? (Long) r.get(5) : -1;
        int permitHolders = r.size() > 6 ? ((Long) r.get(6)).intValue() : 0;
        String permitLimitText = r.size() > 7 ? text(r.get(7)) : "";
        long firstPermitEnds = r.size() > 8 ? (Long) r.get(8) : -1;
        OptionalInt permitLimit = OptionalInt.empty();
        if (permitHolders > 0 && !permitLimitText.isEmpty()) {
            try {
                permitLimit = OptionalInt.of(Integer.parseInt(permitLimitText));
            } catch (NumberFormatException e) {
                LOG.debug("permit limit of {} is not a number: {}", key, permitLimitText);
            }
        }
        Optional<Duration> oldestParkedAge = parked > 0 && parkedSince >= 0
                ? Optional.of(Duration.ofMillis(Math.max(0, clock.millis() - parkedSince)))
                : Optional.empty();
        OptionalLong counter = OptionalLong.empty();
        try {
            counter = fence.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(fence));
        } catch (NumberFormatException e) {
            LOG.debug("fencing counter of {} is not a number: {}", key, fence);
        }
        // '~<waiter id>': released and reserved for the head of the key's waiter queue, not held by anyone
        boolean reserved = "string".equals(type) && value.startsWith("~");
        boolean held = "string".equals(type) && !value.isEmpty() && !reserved;
        boolean waiters = reserved || (held && value.endsWith("+"));
        String token = waiters ? value.substring(0, value.length() - 1) : value;
        return new LockView(
                prefix,
                name,
                key,
                held ? Optional.of(token) : Optional.empty(),
                held && pttl >= 0
                        ? Optional.of(Duration.ofMillis(pttl))
                        : permitHolders > 0 && firstPermitEnds >= 0
                                ? Optional.of(Duration.ofMillis(firstPermitEnds))
                                : Optional.empty(),
                counter,
                waiters,
                parked,
                oldestParkedAge,
                permitHolders,
                permitLimit);
    }

    private static void checkPrefix(String prefix) {
        Require.notNull("prefix", prefix);
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("prefix cannot contain '{' or '}': " + Names.show(prefix));
        }
    }

    // ---------------------------------------------------------------- plumbing

    private DelayQueue<JsonNode> queue(String name) {
        return DelayQueue.builder(redis, name, JsonNode.class).build();
    }

    private static String queuePrefix(String queue) {
        Names.requireValid(Names.Kind.QUEUE_NAME, Require.notNull("queue", queue));
        return QueueKeyspace.prefix(queue);
    }

    static <R> R call(String what, Supplier<R> body) {
        try {
            return body.get();
        } catch (JedisException e) {
            throw new InspectException("could not " + what + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (e.getCause() instanceof JedisException j) { // DelayQueueException wraps the Jedis exception
                throw new InspectException("could not " + what + ": " + j.getMessage(), e);
            }
            throw e;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] num(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(Object reply) {
        return reply == null ? "" : new String((byte[]) reply, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "Inspector[staleAfter=" + staleAfter + ", lockPrefixes=" + lockPrefixes + "]";
    }

    /** Builds an {@link Inspector}. Not threadsafe; each setting may be set once. */
    public static final class Builder {
        /** Default staleness limit: entries not seen for a day drop out of {@link #registered()}. */
        public static final Duration DEFAULT_STALE_AFTER = Duration.ofDays(1);
        /** Default payload preview: 1,024 bytes. */
        public static final int DEFAULT_PREVIEW_BYTES = 1024;
        /** The lock prefix whose registry is always read. */
        public static final String DEFAULT_LOCK_PREFIX = "lock:";

        private final UnifiedJedis redis;
        private Duration staleAfter;
        private Integer previewBytes;
        private final List<String> lockPrefixes = new ArrayList<>();
        private Clock clock;

        private Builder(UnifiedJedis redis) {
            this.redis = Require.notNull("redis", redis);
        }

        /**
         * How long a registry entry may go unrefreshed before it drops out (default 1 day). Running workers
         * refresh every 30 s, so a queue whose workers all stopped stays visible this long.
         *
         * @throws IllegalArgumentException when not within [1 minute, 366 days]
         * @throws IllegalStateException when already set
         */
        public Builder staleAfter(Duration staleAfter) {
            Require.within("staleAfter", staleAfter, Duration.ofMinutes(1), Duration.ofDays(366));
            this.staleAfter = Require.setOnce("staleAfter", this.staleAfter, staleAfter);
            return this;
        }

        /**
         * How many bytes of a payload to show at most (default 1,024).
         *
         * @throws IllegalArgumentException when not within [16, 1,048,576]
         * @throws IllegalStateException when already set
         */
        public Builder payloadPreviewBytes(int bytes) {
            Require.within("payloadPreviewBytes", bytes, 16, 1 << 20);
            this.previewBytes = Require.setOnce("payloadPreviewBytes", this.previewBytes, bytes);
            return this;
        }

        /**
         * Lock prefixes besides {@code lock:} whose registry {@link #registered()} reads. May be called more
         * than once; each call adds.
         *
         * @throws IllegalArgumentException when a prefix holds a brace
         */
        public Builder lockPrefixes(List<String> prefixes) {
            for (String p : Require.notNull("prefixes", prefixes)) {
                checkPrefix(p);
                lockPrefixes.add(p);
            }
            return this;
        }

        /**
         * The clock staleness is measured on (default the system clock).
         *
         * @throws IllegalStateException when already set
         */
        public Builder clock(Clock clock) {
            this.clock = Require.setOnce("clock", this.clock, clock);
            return this;
        }

        /** Builds the inspector. Nothing is sent to Redis. */
        public Inspector build() {
            return new Inspector(this);
        }
    }
}
