package io.github.deferlock.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.inspect.ConflictReport;
import io.github.deferlock.inspect.ConflictView;
import io.github.deferlock.inspect.DeadLetterPage;
import io.github.deferlock.inspect.DeadLetterView;
import io.github.deferlock.inspect.IdActionResult;
import io.github.deferlock.inspect.JobView;
import io.github.deferlock.inspect.LockView;
import io.github.deferlock.inspect.PayloadPreview;
import io.github.deferlock.inspect.PermitsView;
import io.github.deferlock.inspect.RegistryEntry;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code --json} shape of each result: field names in camelCase, times as ISO-8601 UTC strings,
 * durations in milliseconds, absent values as {@code null}. Stateless.
 */
final class JsonViews {
    private JsonViews() {}

    static String kind(Enum<?> kind) {
        return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * @param paused per entry, in order: whether the queue is paused; null for a lock prefix
     */
    static ArrayNode registry(List<RegistryEntry> entries, List<Boolean> paused) {
        ArrayNode a = Session.object().arrayNode();
        for (int i = 0; i < entries.size(); i++) {
            RegistryEntry e = entries.get(i);
            ObjectNode o = a.addObject()
                    .put("kind", kind(e.kind()))
                    .put("name", e.name())
                    .put("lastSeen", e.lastSeen().toString());
            if (paused.get(i) != null) {
                o.put("paused", paused.get(i));
            }
        }
        return a;
    }

    static ObjectNode stats(QueueStats s) {
        return Session.object()
                .put("queue", s.queue())
                .put("waiting", s.waiting())
                .put("due", s.due())
                .put("inFlight", s.inFlight())
                .put("dead", s.dead())
                .put("held", s.held())
                .put("oldestDueAgeMillis", s.oldestDueAge().toMillis())
                .put("paused", s.paused())
                .put("pausedSince", s.paused() ? s.pausedSince().toString() : null)
                .put("at", s.at().toString());
    }

    static ObjectNode deadPage(DeadLetterPage p) {
        ObjectNode o =
                Session.object().put("queue", p.queue()).put("total", p.total()).put("offset", p.offset());
        ArrayNode items = o.putArray("items");
        for (DeadLetterView d : p.items()) {
            ObjectNode i = items.addObject()
                    .put("id", d.id())
                    .put("attempts", d.attempts())
                    .put("lastError", d.lastError())
                    .put("diedAt", d.diedAt().toString());
            i.set("payload", payload(d.payload()));
        }
        return o;
    }

    static ObjectNode job(JobView j) {
        ObjectNode o = Session.object()
                .put("queue", j.queue())
                .put("id", j.id())
                .put("state", kind(j.state()))
                .put("attempts", j.attempts())
                .put("priority", j.priority());
        time(o, "dueAt", j.dueAt());
        time(o, "visibleUntil", j.visibleUntil());
        time(o, "diedAt", j.diedAt());
        o.put("lastError", j.lastError().orElse(null));
        if (j.progress().isPresent()) {
            o.putObject("progress")
                    .put("percent", j.progress().get().percent())
                    .put("note", j.progress().get().note())
                    .put("attempt", j.progress().get().attempt())
                    .put("at", j.progress().get().at().toString());
        } else {
            o.putNull("progress");
        }
        ObjectNode h = o.putObject("headers");
        j.headers().entrySet().stream()
                .sorted(java.util.Map.Entry.comparingByKey())
                .forEach(e -> h.put(e.getKey(), e.getValue()));
        o.set("payload", payload(j.payload()));
        return o;
    }

    static ObjectNode lock(LockView l) {
        ObjectNode o = Session.object()
                .put("prefix", l.prefix())
                .put("name", l.name())
                .put("key", l.key())
                .put("held", l.held())
                .put("holderToken", l.holderToken().orElse(null));
        if (l.isPermits()) {
            o.putObject("permits")
                    .put("held", l.permitHolders())
                    .put("limit", l.permitLimit().getAsInt());
        } else {
            o.putNull("permits");
        }
        if (l.remainingLease().isPresent()) {
            o.put("remainingLeaseMillis", l.remainingLease().get().toMillis());
        } else {
            o.putNull("remainingLeaseMillis");
        }
        if (l.fencingCounter().isPresent()) {
            o.put("fencingCounter", l.fencingCounter().getAsLong());
        } else {
            o.putNull("fencingCounter");
        }
        o.put("waiters", l.waiters());
        o.put("parked", l.parked());
        if (l.oldestParkedAge().isPresent()) {
            o.put("oldestParkedAgeMillis", l.oldestParkedAge().get().toMillis());
        } else {
            o.putNull("oldestParkedAgeMillis");
        }
        return o;
    }

    static ObjectNode permits(PermitsView p) {
        ObjectNode o =
                Session.object().put("prefix", p.prefix()).put("name", p.name()).put("key", p.key());
        if (p.limit().isPresent()) {
            o.put("limit", p.limit().getAsInt());
        } else {
            o.putNull("limit");
        }
        ArrayNode holders = o.putArray("holders");
        for (PermitsView.Holder h : p.holders()) {
            holders.addObject()
                    .put("slot", h.slot())
                    .put("fencingToken", h.fencingToken())
                    .put("remainingLeaseMillis", h.remainingLease().toMillis());
        }
        o.put("waiters", p.waiters());
        if (p.fencingCounter().isPresent()) {
            o.put("fencingCounter", p.fencingCounter().getAsLong());
        } else {
            o.putNull("fencingCounter");
        }
        return o;
    }

    static ObjectNode conflicts(ConflictReport r) {
        ObjectNode o = Session.object()
                .put("prefix", r.prefix())
                .put("since", r.since().toString())
                .put("windowMillis", r.window().toMillis());
        ArrayNode locks = o.putArray("locks");
        for (ConflictView v : r.locks()) {
            ObjectNode l = locks.addObject().put("name", v.name()).put("key", v.key());
            long[] counts = {v.throwConflicts(), v.sleepRetryConflicts(), v.deferConflicts()};
            String[] names = {"THROW", "SLEEP_RETRY", "DEFER"};
            ObjectNode c = l.putObject("conflicts");
            ObjectNode rate = l.putObject("perSecond");
            for (int i = 0; i < names.length; i++) {
                c.put(names[i], counts[i]);
                rate.put(names[i], r.perSecond(counts[i]));
            }
            l.put("total", v.total()).put("waiters", v.waiters()).put("parked", v.parked());
            if (v.oldestParkedAge().isPresent()) {
                l.put("oldestParkedAgeMillis", v.oldestParkedAge().get().toMillis());
            } else {
                l.putNull("oldestParkedAgeMillis");
            }
            l.put("holderToken", v.holderToken().orElse(null));
            if (v.remainingLease().isPresent()) {
                l.put("remainingLeaseMillis", v.remainingLease().get().toMillis());
            } else {
                l.putNull("remainingLeaseMillis");
            }
        }
        return o;
    }

    static ObjectNode action(String queue, String action, IdActionResult r) {
        ObjectNode o = Session.object().put("queue", queue).put("action", action);
        ArrayNode applied = o.putArray("applied");
        r.applied().forEach(applied::add);
        ArrayNode notFound = o.putArray("notFound");
        r.notFound().forEach(notFound::add);
        return o;
    }

    private static ObjectNode payload(PayloadPreview p) {
        return Session.object()
                .put("preview", p.text())
                .put("totalBytes", p.totalBytes())
                .put("truncated", p.truncated());
    }

    private static void time(ObjectNode o, String field, Optional<Instant> t) {
        o.put(field, t.map(Instant::toString).orElse(null));
    }
}
