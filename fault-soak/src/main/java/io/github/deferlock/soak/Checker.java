package io.github.deferlock.soak;

import io.github.deferlock.soak.History.Ack;
import io.github.deferlock.soak.History.Acquire;
import io.github.deferlock.soak.History.Handle;
import io.github.deferlock.soak.History.Handled;
import io.github.deferlock.soak.History.Write;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks a schedule's {@link History} against the promises of docs/guarantees.md. Each check names what it
 * found; the history is only read. Threadsafe (stateless).
 *
 * <ul>
 *   <li>{@code token-order}: per resource, the tokens of accepted writes never go down, and one token
 *       belongs to one hold; per lock key, a hold whose request started after another hold's reply has a
 *       larger token.
 *   <li>{@code overlap}: per resource, the accepted writes of two holds never interleave, and no write is
 *       accepted from a hold that checked it still held the lock after another hold with a larger token had
 *       already acquired it (two live holders at once). A write sent knowing the hold was lost is judged by the
 *       fence alone (the first check).
 *   <li>{@code lost-enqueue}: every acknowledged enqueue was handled at least once.
 *   <li>{@code handled-after-ack}: no delivery (receipt) runs twice, and none starts after it was acked.
 *   <li>{@code stuck}: after the settle period nothing is in flight or due, and every dead letter has a reason.
 *   <li>{@code client-crash}: no client thread ended with an exception nothing caught (a lock call that threw
 *       what its contract does not name, such as a {@code ClassCastException} from a misread reply).
 * </ul>
 *
 * <p>Failover losses (docs/cluster-sentinel.md: replication is asynchronous, so a failover may lose a write
 * the old master acknowledged but had not yet sent to the replica that was promoted) are counted by kind, not
 * reported as violations, when the write straddles a failover window of the history: acknowledged after the
 * window's sync point and before the killed node was back. The sync point is not a guess: {@link
 * ScheduleRun#SYNC_LEAD_MS} before the SIGKILL the runner writes to the master and {@code WAIT}s for every replica, so every write acknowledged
 * before that is on whichever replica is promoted, and losing it is a violation. When the replicas did not
 * confirm within {@link ScheduleRun#SYNC_WAIT_MS}, nothing tells which earlier writes were replicated, and
 * the window opens at the schedule's start (counted in the totals as a failover without sync):
 *
 * <ul>
 *   <li>{@code enqueue}: an acknowledged enqueue without replica acknowledgement ({@code ENQ}) that was never
 *       handled and is gone from the queue. The same loss of an enqueue every replica had acknowledged
 *       ({@code ENQW}) stays a {@code lost-enqueue} violation, whenever it happened.
 *   <li>{@code ack}: a delivery that ran again after its successful ack, or a receipt handed out twice (the
 *       ack, the claim or the receipt counter was lost), the earlier event before the window's end and the
 *       later run after its start.
 *   <li>{@code lock}: a write accepted from a hold that believed it still held the lock after a newer hold
 *       had acquired it, when the older hold was granted before the window's end and the newer one after its
 *       start (the old grant or its last renewal was not replicated).
 * </ul>
 */
final class Checker {

    /** Details listed per check and schedule at most; the count says how many more there were. */
    static final int MAX_DETAILS = 5;

    private Checker() {}

    /**
     * What the checker found in one history.
     *
     * @param violations broken promises
     * @param failoverLosses writes a failover lost, counted by kind ({@code enqueue}, {@code ack}, {@code
     *     lock}); the documented cost of asynchronous replication, not violations
     * @param lossDetails the first {@link #MAX_DETAILS} losses of each kind, described
     */
    record Verdict(List<Violation> violations, Map<String, Integer> failoverLosses, List<String> lossDetails) {
        Verdict {
            violations = List.copyOf(violations);
            failoverLosses = Map.copyOf(failoverLosses);
            lossDetails = List.copyOf(lossDetails);
        }
    }

    /** Every violation found in {@code history}, which schedule {@code seed} recorded. */
    static List<Violation> check(long seed, History history) {
        return judge(seed, history).violations();
    }

    /** Every violation and failover loss found in {@code history}, which schedule {@code seed} recorded. */
    static Verdict judge(long seed, History history) {
        List<Violation> out = new ArrayList<>();
        Sink sink = new Sink(seed, out);
        tokenOrder(history, sink);
        overlap(history, sink);
        lostEnqueues(history, sink);
        handledAfterAck(history, sink);
        stuck(history, sink);
        crashes(history, sink);
        sink.finish();
        return new Verdict(out, sink.losses, sink.lossDetails);
    }

    /** The failover window that {@code earlierMs} precedes the end of and {@code laterMs} follows the start of. */
    private static History.Failover straddled(History h, long earlierMs, long laterMs) {
        for (History.Failover f : h.failovers()) {
            if (earlierMs >= f.syncMs() && earlierMs <= f.endMs() && laterMs >= f.startMs()) {
                return f;
            }
        }
        return null;
    }

    private static void tokenOrder(History h, Sink sink) {
        Map<String, List<Write>> byKey = acceptedByKey(h);
        byKey.forEach((key, writes) -> {
            Write prev = null;
            for (Write w : writes) {
                if (prev != null && w.token() < prev.token()) {
                    sink.add(
                            "token-order",
                            "resource " + key + " accepted token " + w.token() + " (hold " + w.hold() + ") after token "
                                    + prev.token() + " (hold " + prev.hold() + ")");
                } else if (prev != null
                        && w.token() == prev.token()
                        && !w.hold().equals(prev.hold())) {
                    sink.add(
                            "token-order",
                            "resource " + key + " accepted token " + w.token() + " from two holds: " + prev.hold()
                                    + " and " + w.hold());
                }
                prev = w;
            }
        });
        Map<String, List<Acquire>> acquires = h.acquires().stream()
                .collect(Collectors.groupingBy(Acquire::key, LinkedHashMap::new, Collectors.toList()));
        acquires.forEach((key, list) -> {
            List<Acquire> byReply = new ArrayList<>(list);
            byReply.sort((a, b) -> Long.compare(a.replyMs(), b.replyMs()));
            // For each hold B, the largest token among holds whose reply came before B's request started.
            List<Acquire> byStart = new ArrayList<>(list);
            byStart.sort((a, b) -> Long.compare(a.startMs(), b.startMs()));
            int i = 0;
            Acquire highest = null;
            for (Acquire b : byStart) {
                while (i < byReply.size() && byReply.get(i).replyMs() < b.startMs()) {
                    Acquire a = byReply.get(i++);
                    if (highest == null || a.token() > highest.token()) {
                        highest = a;
                    }
                }
                if (highest != null && b.token() <= highest.token()) {
                    sink.add(
                            "token-order",
                            "lock " + key + " granted token " + b.token() + " to hold " + b.hold()
                                    + " (requested at " + b.startMs() + ") after it had granted token "
                                    + highest.token() + " to hold " + highest.hold() + " (reply at "
                                    + highest.replyMs() + ")");
                }
            }
        });
    }

    private static void overlap(History h, Sink sink) {
        acceptedByKey(h).forEach((key, writes) -> {
            Set<String> finished = new HashSet<>();
            String current = null;
            for (Write w : writes) {
                if (!w.hold().equals(current)) {
                    if (finished.contains(w.hold())) {
                        sink.add(
                                "overlap",
                                "resource " + key + " accepted a write of hold " + w.hold() + " (token " + w.token()
                                        + ") after writes of hold " + current + " had come in between");
                    }
                    if (current != null) {
                        finished.add(current);
                    }
                    current = w.hold();
                }
            }
        });
        Map<String, List<Acquire>> acquires = h.acquires().stream().collect(Collectors.groupingBy(Acquire::key));
        Map<String, Acquire> byHold = new HashMap<>();
        h.acquires().forEach(a -> byHold.put(a.hold(), a));
        for (Write w : h.writes()) {
            if (!w.accepted() || !w.held()) {
                continue;
            }
            for (Acquire other : acquires.getOrDefault(w.key(), List.of())) {
                if (other.token() > w.token() && other.replyMs() < w.sendMs()) {
                    Acquire mine = byHold.get(w.hold());
                    History.Failover f = mine == null ? null : straddled(h, mine.replyMs(), other.replyMs());
                    if (f != null) {
                        sink.lost(
                                "lock",
                                "hold " + w.hold() + " (token " + w.token() + ", granted at " + mine.replyMs()
                                        + ") wrote to " + w.key() + " at " + w.sendMs() + " after hold "
                                        + other.hold() + " (token " + other.token() + ") acquired at "
                                        + other.replyMs() + ", across the failover " + f);
                        break;
                    }
                    sink.add(
                            "overlap",
                            "resource " + w.key() + " accepted a write of hold " + w.hold() + " (token " + w.token()
                                    + ") sent at " + w.sendMs() + " while it believed it held the lock, but hold "
                                    + other.hold() + " (token " + other.token() + ") had acquired it at "
                                    + other.replyMs());
                    break;
                }
            }
        }
    }

    private static void lostEnqueues(History h, Sink sink) {
        Set<String> handled = h.handled().stream().map(Handled::id).collect(Collectors.toSet());
        for (String id : h.enqueued()) {
            if (!handled.contains(id)) {
                String state = h.end().states().getOrDefault(id, "gone");
                String reason = h.end().deadReasons().get(id);
                boolean replicated = h.replicated().contains(id);
                Long at = h.enqueuedMs().get(id);
                History.Failover f =
                        replicated || at == null || !state.equals("gone") ? null : straddled(h, at, Long.MAX_VALUE);
                if (f != null) {
                    sink.lost(
                            "enqueue",
                            "enqueue " + id + " acknowledged at " + at + " without replica acknowledgement, gone"
                                    + " after the failover " + f);
                    continue;
                }
                sink.add(
                        "lost-enqueue",
                        "acknowledged enqueue " + id + (replicated ? " (acknowledged by every replica)" : "")
                                + (at == null ? "" : " at " + at)
                                + " was never handled; at the end it is " + state
                                + (reason == null ? "" : " (" + reason + ")")
                                + (h.failovers().isEmpty() ? "" : "; failover windows " + h.failovers()));
            }
        }
    }

    private static void handledAfterAck(History h, Sink sink) {
        Map<String, List<Handle>> runs = new HashMap<>();
        for (Handle run : h.handles()) {
            runs.computeIfAbsent(run.id() + " " + run.receipt(), k -> new ArrayList<>())
                    .add(run);
        }
        Set<String> lostDeliveries = new HashSet<>();
        runs.forEach((delivery, list) -> {
            if (list.size() > 1) {
                long first = list.stream().mapToLong(Handle::startMs).min().orElseThrow();
                long last = list.stream().mapToLong(Handle::startMs).max().orElseThrow();
                History.Failover f = straddled(h, first, last);
                if (f != null) {
                    lostDeliveries.add(delivery);
                    sink.lost(
                            "ack",
                            "delivery " + delivery + " (id receipt) ran " + list.size() + " times, at " + first
                                    + " and " + last + ", across the failover " + f);
                    return;
                }
                sink.add("handled-after-ack", "delivery " + delivery + " (id receipt) ran " + list.size() + " times");
            }
        });
        for (Ack ack : h.acks()) {
            if (!ack.ok()) {
                continue;
            }
            for (Handle run : runs.getOrDefault(ack.id() + " " + ack.receipt(), List.of())) {
                if (run.startMs() > ack.endMs()) {
                    History.Failover f = straddled(h, ack.endMs(), run.startMs());
                    if (f != null) {
                        if (!lostDeliveries.add(ack.id() + " " + ack.receipt())) {
                            continue; // counted once already, as a receipt handed out twice
                        }
                        sink.lost(
                                "ack",
                                "job " + ack.id() + " ran at " + run.startMs() + " with receipt " + ack.receipt()
                                        + ", acked at " + ack.endMs() + ", across the failover " + f);
                        continue;
                    }
                    sink.add(
                            "handled-after-ack",
                            "job " + ack.id() + " ran at " + run.startMs() + " with receipt " + ack.receipt()
                                    + ", acked at " + ack.endMs());
                }
            }
        }
    }

    private static void crashes(History h, Sink sink) {
        for (History.Crash c : h.crashes()) {
            sink.add(
                    "client-crash",
                    "thread " + c.thread() + " of client " + c.client() + " ended with " + c.exception() + " at "
                            + c.ms() + " (its stack trace is in that JVM's output)");
        }
    }

    private static void stuck(History h, Sink sink) {
        History.QueueEnd end = h.end();
        if (end.inFlight() > 0 || end.due() > 0) {
            List<String> ids = end.remaining().stream().limit(MAX_DETAILS).toList();
            sink.add(
                    "stuck",
                    end.inFlight() + " in flight and " + end.due() + " due after the settle period, e.g. " + ids);
        }
        end.deadReasons().forEach((id, reason) -> {
            if (reason == null || reason.isBlank()) {
                sink.add("stuck", "dead letter " + id + " has no recorded reason");
            }
        });
    }

    private static Map<String, List<Write>> acceptedByKey(History h) {
        Map<String, List<Write>> byKey = new LinkedHashMap<>();
        for (Write w : h.writes()) {
            if (w.accepted()) {
                byKey.computeIfAbsent(w.key(), k -> new ArrayList<>()).add(w);
            }
        }
        return byKey;
    }

    /** Collects violations, keeping {@link #MAX_DETAILS} per check and counting the rest. */
    private static final class Sink {
        private final long seed;
        private final List<Violation> out;
        private final Map<String, Integer> counts = new LinkedHashMap<>();
        final Map<String, Integer> losses = new LinkedHashMap<>();
        final List<String> lossDetails = new ArrayList<>();

        Sink(long seed, List<Violation> out) {
            this.seed = seed;
            this.out = out;
        }

        void add(String check, String detail) {
            int n = counts.merge(check, 1, Integer::sum);
            if (n <= MAX_DETAILS) {
                out.add(new Violation(seed, check, detail));
            }
        }

        void lost(String kind, String detail) {
            int n = losses.merge(kind, 1, Integer::sum);
            if (n <= MAX_DETAILS) {
                lossDetails.add("seed " + seed + " lost in failover (" + kind + "): " + detail);
            }
        }

        void finish() {
            counts.forEach((check, n) -> {
                if (n > MAX_DETAILS) {
                    out.add(new Violation(seed, check, "... and " + (n - MAX_DETAILS) + " more of this kind"));
                }
            });
        }
    }
}
