package io.github.deferlock.dashboard.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.deferlock.dashboard.ActionRecord;
import io.github.deferlock.delay.ScheduleInfo;
import io.github.deferlock.inspect.ConflictReport;
import io.github.deferlock.inspect.ConflictView;
import io.github.deferlock.inspect.DeadLetterPage;
import io.github.deferlock.inspect.DeadLetterView;
import io.github.deferlock.inspect.IdActionResult;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.inspect.JobView;
import io.github.deferlock.inspect.LockPage;
import io.github.deferlock.inspect.LockView;
import io.github.deferlock.inspect.PayloadPreview;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's JSON API: routes a request (path relative to where the servlet is mounted) to the inspector
 * (deferlock-inspect's read model and actions), the sampler and the action guard, and writes the JSON reply or
 * a JSON error. Times are epoch milliseconds, durations milliseconds. Threadsafe.
 *
 * <p>Queue names, job ids and lock prefixes travel as query parameters or in the JSON body, never in the
 * path, so any name (with {@code /}, {@code %} or spaces) reaches the read model unchanged.
 */
public final class Api {

    private static final Logger log = LoggerFactory.getLogger(Api.class);

    /** Longest action body read, bytes. */
    static final int MAX_BODY = 256 * 1024;
    /** Most ids one requeue or purge may name. */
    static final int MAX_IDS = Inspector.MAX_IDS;
    /** Most dead letters per page. */
    static final int MAX_PAGE = 100;
    /** Most locks one listing returns. */
    public static final int MAX_LOCKS = 200;

    private final Inspector inspector;
    private final QueueOverview overview;
    private final LockPanel lockPanel;
    private final HeldKeysPanel heldKeys;
    private final ConflictPanel conflictPanel;
    private final RateSampler sampler;
    private final ActionGuard guard;
    private final Consumer<ActionRecord> audit;
    private final Clock clock;
    private final long refreshMs;
    private final ObjectMapper json = new ObjectMapper();

    /**
     * An API over {@code inspector}.
     *
     * @param audit receives every action, run or refused
     * @param refreshMs how often the page polls (it reads it from {@code api/session})
     */
    public Api(
            Inspector inspector,
            QueueOverview overview,
            LockPanel lockPanel,
            HeldKeysPanel heldKeys,
            RateSampler sampler,
            ActionGuard guard,
            Consumer<ActionRecord> audit,
            Clock clock,
            long refreshMs) {
        this.inspector = inspector;
        this.overview = overview;
        this.lockPanel = lockPanel;
        this.heldKeys = heldKeys;
        this.conflictPanel = new ConflictPanel(inspector, clock);
        this.sampler = sampler;
        this.guard = guard;
        this.audit = audit;
        this.clock = clock;
        this.refreshMs = refreshMs;
    }

    /** Answers {@code GET api/<path>}. */
    public void get(String path, HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object body =
                switch (path) {
                    case "session" -> session(request);
                    case "queues" -> queues();
                    case "history" -> history(request);
                    case "dead" -> dead(request);
                    case "schedules" -> schedules(request);
                    case "job" -> job(request, response);
                    case "locks" -> locks(request);
                    case "conflicts" -> conflicts(request);
                    default -> throw new HttpError(404, "no such API: " + path);
                };
        write(response, body);
    }

    /** Answers {@code POST api/<path>}. */
    public void post(String path, HttpServletRequest request, HttpServletResponse response) throws IOException {
        String action =
                switch (path) {
                    case "actions/requeue" -> "requeue";
                    case "actions/purge" -> "purge";
                    case "actions/cancel" -> "cancel";
                    case "actions/requeue-all" -> "requeue-all";
                    case "actions/pause" -> "pause";
                    case "actions/resume" -> "resume";
                    default -> throw new HttpError(404, "no such API: " + path);
                };
        String actor;
        try {
            actor = guard.admit(request);
        } catch (HttpError e) {
            JsonNode claimed = claimedBody(request);
            record(
                    request,
                    claimedActor(request),
                    action,
                    claimedQueue(claimed),
                    claimedIds(claimed),
                    "refused: " + e.getMessage());
            throw e;
        }
        String queue = "";
        List<String> ids = List.of();
        try {
            JsonNode body = readBody(request);
            queue = claimedQueue(body); // what the request named, for the audit log even when refused below
            ids = claimedIds(body);
            queue = text(body, "queue");
            Object result =
                    switch (action) {
                        case "requeue", "purge" -> {
                            ids = ids(body);
                            IdActionResult r = action.equals("requeue")
                                    ? inspector.requeueDead(queue, ids)
                                    : inspector.purgeDead(queue, ids);
                            record(
                                    request,
                                    actor,
                                    action,
                                    queue,
                                    ids,
                                    "done " + r.applied() + ", not dead " + r.notFound());
                            yield Map.of("done", r.applied(), "missing", r.notFound());
                        }
                        case "cancel" -> {
                            ids = List.of(text(body, "id"));
                            boolean cancelled = inspector.cancel(queue, ids.get(0));
                            record(request, actor, action, queue, ids, cancelled ? "cancelled" : "no such job");
                            yield Map.of("cancelled", cancelled);
                        }
                        case "pause", "resume" -> {
                            boolean pause = action.equals("pause");
                            boolean changed = pause ? inspector.pause(queue) : inspector.resume(queue);
                            record(
                                    request,
                                    actor,
                                    action,
                                    queue,
                                    ids,
                                    changed ? (pause ? "paused" : "resumed") : pause ? "already paused" : "not paused");
                            yield Map.of("changed", changed, "paused", pause);
                        }
                        default -> {
                            long confirmed = count(body);
                            long dead = inspector.queueStats(queue).dead();
                            if (dead != confirmed) {
                                throw new HttpError(
                                        409,
                                        "the queue has " + dead + " dead letters, not the " + confirmed
                                                + " confirmed: look again and confirm the new count");
                            }
                            long requeued = inspector.requeueAllDead(queue);
                            record(
                                    request,
                                    actor,
                                    action,
                                    queue,
                                    ids,
                                    "requeued " + requeued + " (confirmed " + confirmed + ")");
                            yield Map.of("requeued", requeued);
                        }
                    };
            write(response, result);
        } catch (HttpError | IllegalArgumentException e) {
            record(request, actor, action, queue, ids, "refused: " + e.getMessage());
            throw e;
        } catch (RuntimeException e) {
            record(request, actor, action, queue, ids, "failed: " + e);
            throw e;
        }
    }

    private Map<String, Object> session(HttpServletRequest request) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("actions", guard.actionsEnabled());
        out.put("auth", guard.scheme().orElse(null));
        out.put("csrf", guard.actionsEnabled() ? guard.csrfToken(request) : null);
        out.put("user", guard.actor(request).orElse(null));
        out.put("refreshMs", refreshMs);
        return out;
    }

    private Map<String, Object> queues() {
        QueueOverview.Snapshot snapshot = overview.read();
        List<Map<String, Object>> out = new ArrayList<>();
        for (QueueOverview.Row row : snapshot.queues()) {
            RateSampler.Sample latest = sampler.latest(row.entry().name());
            Map<String, Object> q = new LinkedHashMap<>();
            q.put("name", row.entry().name());
            q.put("kind", row.entry().kind().name());
            q.put("due", row.stats().due());
            q.put("held", row.stats().held());
            putHeldKeys(q, row);
            q.put("scheduled", row.stats().waiting() - row.stats().due());
            q.put("inFlight", row.stats().inFlight());
            q.put("dead", row.stats().dead());
            q.put("oldestDueAgeMs", row.stats().oldestDueAge().toMillis());
            q.put("paused", row.stats().paused());
            q.put(
                    "pausedSince",
                    row.stats().paused() ? row.stats().pausedSince().toEpochMilli() : null);
            q.put(
                    "rateLimit",
                    row.rateLimit() == null
                            ? null
                            : Map.of(
                                    "rate", row.rateLimit().rate(),
                                    "intervalMs", row.rateLimit().interval().toMillis(),
                                    "burst", row.rateLimit().burst(),
                                    "text", row.rateLimit().toString()));
            q.put("enqueuedPerSec", latest == null ? null : latest.enqueuedPerSec());
            q.put("handledPerSec", latest == null ? null : latest.handledPerSec());
            out.add(q);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("now", clock.millis());
        result.put("queues", out);
        result.put("lockPrefixes", snapshot.lockPrefixes());
        return result;
    }

    /**
     * The queue's most held concurrency keys, from the background thread's last read (no Redis call here;
     * docs/dashboard.md, "Held concurrency keys"); none when the stats just read count no held job.
     */
    private void putHeldKeys(Map<String, Object> q, QueueOverview.Row row) {
        HeldKeysPanel.View view =
                row.stats().held() > 0 ? heldKeys.view(row.entry().name()) : null;
        List<Map<String, Object>> keys = new ArrayList<>();
        for (Inspector.HeldKey k : view == null ? List.<Inspector.HeldKey>of() : view.keys()) {
            Map<String, Object> key = new LinkedHashMap<>();
            key.put("key", k.key());
            key.put("held", k.held());
            key.put("running", k.running());
            key.put("limit", k.limit() < 0 ? null : k.limit());
            keys.add(key);
        }
        q.put("heldKeys", keys);
        q.put("heldKeysAt", view == null ? null : view.readAtMillis());
    }

    private Map<String, Object> history(HttpServletRequest request) {
        String queue = param(request, "queue");
        return Map.of("queue", queue, "samples", sampler.history(queue));
    }

    /**
     * A queue's recurring schedules ({@link Inspector#schedules}): id, spec as stored, missed-slot policy,
     * {@code nextFire} (epoch ms, null while a fixed delay waits for its job or when no slot is left), {@code
     * waitingFor} (the job a fixed-delay schedule waits for, else null) and {@code delayMs} (a fixed delay's
     * delay, else null): the page shows a waiting one as "after &lt;job&gt; + 5.0 s".
     */
    private Map<String, Object> schedules(HttpServletRequest request) {
        String queue = param(request, "queue");
        List<Map<String, Object>> rows = new ArrayList<>();
        for (ScheduleInfo i : inspector.schedules(queue)) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", i.id());
            row.put("spec", i.spec());
            row.put("missed", i.missed().toString());
            row.put("nextFire", i.nextFire().map(Instant::toEpochMilli).orElse(null));
            row.put("waitingFor", i.waitingFor().orElse(null));
            row.put("delayMs", delayMillis(i.spec()));
            rows.add(row);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("queue", queue);
        out.put("schedules", rows);
        return out;
    }

    /** The delay of a stored fixed-delay spec ({@code delay:PT5S}), else null. */
    private static Long delayMillis(String spec) {
        if (!spec.startsWith(FIXED_DELAY_KIND)) {
            return null;
        }
        try {
            return java.time.Duration.parse(spec.substring(FIXED_DELAY_KIND.length()))
                    .toMillis();
        } catch (java.time.format.DateTimeParseException e) {
            return null; // another writer's text: the page shows the spec as it is
        }
    }

    private static final String FIXED_DELAY_KIND = "delay:";

    private Map<String, Object> dead(HttpServletRequest request) {
        String queue = param(request, "queue");
        long offset = number(request, "offset", 0, 0, Long.MAX_VALUE);
        int limit = (int) number(request, "limit", 20, 1, MAX_PAGE);
        DeadLetterPage page = inspector.deadLetters(queue, offset, limit);
        List<Map<String, Object>> items = new ArrayList<>();
        for (DeadLetterView d : page.items()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", d.id());
            row.put("attempts", d.attempts());
            row.put("diedAt", d.diedAt().toEpochMilli());
            row.put("error", d.lastError());
            payload(row, d.payload());
            items.add(row);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("queue", queue);
        out.put("total", page.total());
        out.put("offset", page.offset());
        out.put("limit", limit);
        out.put("items", items);
        return out;
    }

    private Object job(HttpServletRequest request, HttpServletResponse response) {
        String queue = param(request, "queue");
        String id = param(request, "id");
        Optional<JobView> job = inspector.job(queue, id);
        if (job.isEmpty()) {
            response.setStatus(404);
            Map<String, Object> missing = new LinkedHashMap<>();
            missing.put("notFound", true);
            missing.put("error", "no job " + id + " in queue " + queue);
            return missing;
        }
        JobView j = job.get();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", j.id());
        out.put("queue", j.queue());
        out.put("state", j.state().name());
        out.put("attempts", j.attempts());
        out.put("priority", j.priority());
        out.put("dueAt", j.dueAt().map(Instant::toEpochMilli).orElse(null));
        out.put("visibleUntil", j.visibleUntil().map(Instant::toEpochMilli).orElse(null));
        out.put("diedAt", j.diedAt().map(Instant::toEpochMilli).orElse(null));
        out.put("lastError", j.lastError().orElse(null));
        out.put(
                "progress",
                j.progress()
                        .map(p -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("percent", p.percent());
                            m.put("note", p.note());
                            m.put("attempt", p.attempt());
                            m.put("at", p.at().toEpochMilli());
                            return m;
                        })
                        .orElse(null));
        out.put("headers", j.headers());
        payload(out, j.payload());
        return out;
    }

    private static void payload(Map<String, Object> out, PayloadPreview preview) {
        out.put("payload", preview.text());
        out.put("payloadBytes", preview.totalBytes());
        out.put("truncated", preview.truncated());
    }

    /** From the lock panel's last walk: no Redis call (docs/dashboard.md, "The locks panel"). */
    private Object locks(HttpServletRequest request) {
        String prefix = request.getParameter("prefix");
        LockPanel.View view = lockPanel.view(prefix == null || prefix.isEmpty() ? "lock:" : prefix);
        List<Map<String, Object>> locks = new ArrayList<>();
        LockPage page = view.page();
        for (LockView l : page == null ? List.<LockView>of() : page.locks()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", l.name());
            row.put("holderToken", l.holderToken().orElse(null));
            if (l.isPermits()) { // a permits name (RedisLocks.permits): how many of its permits are held
                row.put(
                        "permits",
                        Map.of(
                                "held",
                                l.permitHolders(),
                                "limit",
                                l.permitLimit().getAsInt()));
            } else {
                row.put("permits", null);
            }
            row.put(
                    "remainingLeaseMs",
                    l.remainingLease().map(d -> d.toMillis()).orElse(null));
            row.put(
                    "fencingToken",
                    l.fencingCounter().isPresent() ? l.fencingCounter().getAsLong() : null);
            row.put("waiting", l.waiters());
            row.put("parked", l.parked());
            row.put(
                    "oldestParkedAgeMs",
                    l.oldestParkedAge().map(d -> d.toMillis()).orElse(null));
            locks.add(row);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("prefix", view.prefix());
        out.put("locks", locks);
        out.put("more", page != null && page.more());
        out.put("complete", page != null);
        out.put("scannedAt", page == null ? null : view.scannedAtMillis());
        out.put("scanCalls", page == null ? null : view.scanCalls());
        return out;
    }

    /**
     * The most contended locks (docs/dashboard.md, "The conflicts panel"): bounded work per request, and served
     * from memory for a second ({@link ConflictPanel}).
     */
    private Object conflicts(HttpServletRequest request) {
        String prefix = request.getParameter("prefix");
        prefix = prefix == null || prefix.isEmpty() ? "lock:" : prefix;
        int minutes = (int) number(request, "minutes", 5, 1, ConflictPanel.MAX_MINUTES);
        int top = (int) number(request, "top", 20, 1, ConflictPanel.MAX_TOP);
        ConflictReport r = conflictPanel.report(prefix, minutes, top);
        List<Map<String, Object>> locks = new ArrayList<>();
        for (ConflictView v : r.locks()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", v.name());
            row.put("throw", v.throwConflicts());
            row.put("sleepRetry", v.sleepRetryConflicts());
            row.put("defer", v.deferConflicts());
            row.put("throwPerSecond", r.perSecond(v.throwConflicts()));
            row.put("sleepRetryPerSecond", r.perSecond(v.sleepRetryConflicts()));
            row.put("deferPerSecond", r.perSecond(v.deferConflicts()));
            row.put("waiters", v.waiters());
            row.put("parked", v.parked());
            row.put(
                    "oldestParkedAgeMs",
                    v.oldestParkedAge().map(d -> d.toMillis()).orElse(null));
            row.put("holderToken", v.holderToken().orElse(null));
            row.put(
                    "remainingLeaseMs",
                    v.remainingLease().map(d -> d.toMillis()).orElse(null));
            locks.add(row);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("prefix", r.prefix());
        out.put("minutes", minutes);
        out.put("since", r.since().toEpochMilli());
        out.put("windowMs", r.window().toMillis());
        out.put("locks", locks);
        return out;
    }

    /**
     * The JSON body of a request refused before it was read, for the audit log; null when it is not a JSON
     * object (or over {@link #MAX_BODY}). Nothing in it is acted on.
     */
    private JsonNode claimedBody(HttpServletRequest request) {
        try {
            return readBody(request);
        } catch (IOException | RuntimeException e) { // HttpError included: not JSON, or too long
            return null;
        }
    }

    /** The queue a body names, as given (empty when none is a string), for the audit log. */
    private static String claimedQueue(JsonNode body) {
        JsonNode queue = body == null ? null : body.get("queue");
        return queue != null && queue.isTextual() ? queue.asText() : "";
    }

    /**
     * The ids a body names ({@code ids}, or {@code id} for cancel), as given, for the audit log: the string
     * elements, at most {@link #MAX_IDS} of them, then one {@code "… and N more"}.
     */
    private static List<String> claimedIds(JsonNode body) {
        if (body == null) {
            return List.of();
        }
        JsonNode id = body.get("id");
        if (id != null && id.isTextual()) {
            return List.of(id.asText());
        }
        JsonNode ids = body.get("ids");
        if (ids == null || !ids.isArray()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (JsonNode i : ids) {
            if (out.size() == MAX_IDS) {
                out.add("… and " + (ids.size() - MAX_IDS) + " more");
                break;
            }
            if (i.isTextual()) {
                out.add(i.asText());
            }
        }
        return out;
    }

    /** Who a refused request's credentials name, if they are right; else "anonymous". */
    private String claimedActor(HttpServletRequest request) {
        return guard.actor(request).orElse("anonymous");
    }

    private void record(
            HttpServletRequest request, String actor, String action, String queue, List<String> ids, String outcome) {
        ActionRecord record =
                new ActionRecord(clock.instant(), actor, request.getRemoteAddr(), action, queue, ids, outcome);
        try {
            audit.accept(record);
        } catch (RuntimeException e) {
            log.error("the dashboard's audit log threw on {}", record, e);
        }
    }

    private JsonNode readBody(HttpServletRequest request) throws IOException {
        byte[] bytes;
        try (InputStream in = request.getInputStream()) {
            bytes = in.readNBytes(MAX_BODY + 1);
        }
        if (bytes.length > MAX_BODY) {
            throw new HttpError(413, "the request body is over " + MAX_BODY + " bytes");
        }
        try {
            JsonNode node = json.readTree(bytes);
            if (node == null || !node.isObject()) {
                throw new HttpError(400, "the body must be a JSON object");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new HttpError(400, "the body is not JSON: " + e.getOriginalMessage());
        }
    }

    private static String text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty()) {
            throw new HttpError(400, field + " must be a non-empty string");
        }
        return value.asText();
    }

    private static List<String> ids(JsonNode body) {
        JsonNode value = body.get("ids");
        if (value == null || !value.isArray() || value.isEmpty()) {
            throw new HttpError(400, "ids must be a non-empty array of job ids (select dead letters first)");
        }
        if (value.size() > MAX_IDS) {
            throw new HttpError(400, "ids must name at most " + MAX_IDS + " jobs, not " + value.size());
        }
        List<String> ids = new ArrayList<>();
        for (JsonNode id : value) {
            if (!id.isTextual() || id.asText().isEmpty()) {
                throw new HttpError(400, "ids must be non-empty strings");
            }
            ids.add(id.asText());
        }
        return ids;
    }

    private static long count(JsonNode body) {
        JsonNode value = body.get("count");
        if (value == null || !value.canConvertToLong() || !value.isIntegralNumber() || value.asLong() < 1) {
            throw new HttpError(400, "count must be the number of dead letters shown, at least 1");
        }
        return value.asLong();
    }

    private static String param(HttpServletRequest request, String name) {
        String value = request.getParameter(name);
        if (value == null || value.isEmpty()) {
            throw new HttpError(400, name + " is required");
        }
        return value;
    }

    private static long number(HttpServletRequest request, String name, long fallback, long min, long max) {
        String value = request.getParameter(name);
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new HttpError(400, name + " must be a number, not " + value);
        }
        if (n < min || n > max) {
            throw new HttpError(400, name + " must be within [" + min + ", " + max + "], not " + n);
        }
        return n;
    }

    /** Writes {@code body} as JSON with status 200 unless one was set. */
    void write(HttpServletResponse response, Object body) throws IOException {
        response.setContentType("application/json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.setHeader("Cache-Control", "no-store");
        json.writeValue(response.getOutputStream(), body);
    }

    /** Writes the JSON error {@code {"error": message}} with {@code status}. */
    public void error(HttpServletResponse response, int status, String message) throws IOException {
        ObjectNode body = json.createObjectNode().put("error", message);
        response.setStatus(status);
        // Only for the token: a Basic challenge would make the browser prompt and then send cached
        // credentials on its own, which is what CSRF abuses; the page sends them itself.
        if (status == 401 && guard.scheme().filter("token"::equals).isPresent()) {
            response.setHeader("WWW-Authenticate", "Bearer realm=\"deferlock-dashboard\"");
        }
        write(response, body);
    }
}
