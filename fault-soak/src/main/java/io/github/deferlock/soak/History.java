package io.github.deferlock.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one schedule recorded, as the checker reads it. Client JVMs append one line per event to a list on
 * the recorder redis-server (never faulted), so a line written before a SIGKILL survives it; the fenced
 * resource appends its own {@code WRITE} lines in the order it judged the writes. Immutable once built.
 *
 * <p>Line formats (fields separated by one space; names never contain spaces):
 *
 * <ul>
 *   <li>{@code ACQ key token hold startMs replyMs}: a lock was acquired; {@code startMs} is before the request,
 *       {@code replyMs} after the reply (wall clock of the machine, shared by every JVM on it)
 *   <li>{@code REL key token hold endMs outcome}: the hold ended: {@code released}, {@code lost} or {@code error}
 *   <li>{@code WRITE key token hold sendMs accepted held}: the fenced resource judged a write ({@code 1}
 *       accepted, {@code 0} rejected); {@code sendMs} was taken before the holder checked {@code isHeld()} and
 *       sent it; {@code held} is what {@code isHeld()} said ({@code 0}: a write sent knowing the hold was lost,
 *       which the fence must judge by the token alone)
 *   <li>{@code ENQ id [ms]} an acknowledged enqueue ({@code ms}: when its call returned); {@code ENQW id ms} an
 *       enqueue acknowledged after {@code WAIT} said every replica had it ({@code waitForReplicas}); {@code
 *       ENQ? id} an enqueue whose outcome is unknown (it threw, including a {@code WAIT} that fell short)
 *   <li>{@code H id receipt attempts startMs client}: a handler run began
 *   <li>{@code R id receipt endMs}: that run finished its work (the job counts as handled)
 *   <li>{@code A id receipt ok endMs}: the handler acked the job itself; {@code ok} is 1 when the ack succeeded
 *   <li>{@code FO kind startMs endMs syncMs}: written by the runner, a failover window: from the SIGKILL of a
 *       master ({@code startMs}) to the moment the killed node was back as an in-sync replica and the new master
 *       streamed to every replica, or 30 s later ({@code endMs}); {@code syncMs} is when the runner's {@code WAIT} before the
 *       kill began, which every replica confirmed, or {@code -} when they did not confirm in time
 *   <li>{@code CRASH client thread exception ms}: a thread of a client JVM ended with an exception nothing
 *       caught ({@code exception}: its class name); the client threads catch what the library documents, so
 *       this is a defect (in the library, or in the harness when the recorder failed)
 * </ul>
 *
 * @param acquires lock acquisitions
 * @param releases ends of holds
 * @param writes fenced writes, in the order the resource judged them
 * @param enqueued acknowledged enqueues (job ids), with and without replica acknowledgement
 * @param replicated the acknowledged enqueues that every replica had acknowledged too ({@code ENQW})
 * @param enqueuedMs when each acknowledged enqueue's call returned, by id (absent for old lines without it)
 * @param failovers the failover windows of the schedule
 * @param enqueueUnknown enqueues whose outcome is unknown
 * @param handles handler runs that began
 * @param handled handler runs that finished their work
 * @param acks acks the handlers made themselves
 * @param crashes client threads that ended with an uncaught exception
 * @param end the queue as found after the settle period
 */
record History(
        List<Acquire> acquires,
        List<Release> releases,
        List<Write> writes,
        List<String> enqueued,
        java.util.Set<String> replicated,
        Map<String, Long> enqueuedMs,
        List<Failover> failovers,
        List<String> enqueueUnknown,
        List<Handle> handles,
        List<Handled> handled,
        List<Ack> acks,
        List<Crash> crashes,
        QueueEnd end) {

    History {
        acquires = List.copyOf(acquires);
        releases = List.copyOf(releases);
        writes = List.copyOf(writes);
        enqueued = List.copyOf(enqueued);
        replicated = java.util.Set.copyOf(replicated);
        enqueuedMs = Map.copyOf(enqueuedMs);
        failovers = List.copyOf(failovers);
        enqueueUnknown = List.copyOf(enqueueUnknown);
        handles = List.copyOf(handles);
        handled = List.copyOf(handled);
        acks = List.copyOf(acks);
        crashes = List.copyOf(crashes);
        Objects.requireNonNull(end, "end cannot be null");
    }

    /**
     * A failover window: the SIGKILL of a master until the killed node was back as a replica.
     *
     * @param kind the fault ({@code master_kill}, {@code master_failover})
     * @param startMs the SIGKILL
     * @param endMs the killed node back as an in-sync replica, every replica streaming again
     * @param syncMs the moment before which every write the master acknowledged was on every replica (the
     *     runner's {@code WAIT} just before the kill), or {@link #UNKNOWN} when the replicas did not confirm
     */
    record Failover(String kind, long startMs, long endMs, long syncMs) {
        /** The {@code syncMs} of a failover whose replicas did not confirm the runner's {@code WAIT}. */
        static final long UNKNOWN = Long.MIN_VALUE;

        /** Whether the replicas confirmed the runner's {@code WAIT} before the kill. */
        boolean synced() {
            return syncMs != UNKNOWN;
        }

        @Override
        public String toString() {
            return kind + " [" + (synced() ? "replicas in sync at " + syncMs : "replica sync unknown") + ", killed at "
                    + startMs + ", back at " + endMs + "]";
        }
    }

    /** A lock acquisition. */
    record Acquire(String key, long token, String hold, long startMs, long replyMs) {}

    /** The end of a hold. */
    record Release(String key, long token, String hold, long endMs, String outcome) {}

    /** A write the fenced resource judged. */
    record Write(String key, long token, String hold, long sendMs, boolean accepted, boolean held) {}

    /** A handler run that began. */
    record Handle(String id, String receipt, int attempts, long startMs, String client) {}

    /** A handler run that finished its work. */
    record Handled(String id, String receipt, long endMs) {}

    /** An ack a handler made itself. */
    record Ack(String id, String receipt, boolean ok, long endMs) {}

    /** A client thread that ended with an exception nothing caught. */
    record Crash(String client, String thread, String exception, long ms) {}

    /**
     * The queue after the settle period.
     *
     * @param due jobs in the due zset
     * @param inFlight jobs in the in-flight zset
     * @param states the state of every job id that is still in the queue ({@code DUE}, {@code IN_FLIGHT},
     *     {@code DEAD}); ids not in the map are gone (acked)
     * @param deadReasons the reason of every dead letter, by job id
     */
    record QueueEnd(long due, long inFlight, Map<String, String> states, Map<String, String> deadReasons) {
        QueueEnd {
            states = Map.copyOf(states);
            deadReasons = Map.copyOf(deadReasons);
        }

        /** The recorded jobs still in the queue (any state but dead), as sorted {@code id=STATE}. */
        List<String> remaining() {
            return states.entrySet().stream()
                    .filter(e -> !e.getValue().equals("DEAD"))
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .sorted()
                    .toList();
        }

        /** An empty queue: everything acked. */
        static QueueEnd empty() {
            return new QueueEnd(0, 0, Map.of(), Map.of());
        }
    }

    /**
     * Parses the recorded lines.
     *
     * @throws IllegalArgumentException on a line it cannot read
     */
    static History parse(List<String> lines, QueueEnd end) {
        Builder b = new Builder();
        for (String line : lines) {
            b.line(line);
        }
        return b.build(end);
    }

    /** Collects events; for tests that fabricate histories and for {@link #parse}. Not threadsafe. */
    static final class Builder {
        final List<Acquire> acquires = new ArrayList<>();
        final List<Release> releases = new ArrayList<>();
        final List<Write> writes = new ArrayList<>();
        final List<String> enqueued = new ArrayList<>();
        final java.util.Set<String> replicated = new java.util.HashSet<>();
        final Map<String, Long> enqueuedMs = new java.util.HashMap<>();
        final List<Failover> failovers = new ArrayList<>();
        final List<String> enqueueUnknown = new ArrayList<>();
        final List<Handle> handles = new ArrayList<>();
        final List<Handled> handled = new ArrayList<>();
        final List<Ack> acks = new ArrayList<>();
        final List<Crash> crashes = new ArrayList<>();

        Builder line(String line) {
            String[] f = line.split(" ");
            try {
                switch (f[0]) {
                    case "ACQ" ->
                        acquires.add(new Acquire(
                                f[1], Long.parseLong(f[2]), f[3], Long.parseLong(f[4]), Long.parseLong(f[5])));
                    case "REL" ->
                        releases.add(new Release(f[1], Long.parseLong(f[2]), f[3], Long.parseLong(f[4]), f[5]));
                    case "WRITE" ->
                        writes.add(new Write(
                                f[1],
                                Long.parseLong(f[2]),
                                f[3],
                                Long.parseLong(f[4]),
                                "1".equals(f[5]),
                                f.length < 7 || "1".equals(f[6])));
                    case "ENQ", "ENQW" -> {
                        enqueued.add(f[1]);
                        if (f.length > 2) {
                            enqueuedMs.put(f[1], Long.parseLong(f[2]));
                        }
                        if (f[0].equals("ENQW")) {
                            replicated.add(f[1]);
                        }
                    }
                    case "FO" ->
                        failovers.add(new Failover(
                                f[1],
                                Long.parseLong(f[2]),
                                Long.parseLong(f[3]),
                                f.length < 5 || f[4].equals("-") ? Failover.UNKNOWN : Long.parseLong(f[4])));
                    case "ENQ?" -> enqueueUnknown.add(f[1]);
                    case "H" -> handles.add(new Handle(f[1], f[2], Integer.parseInt(f[3]), Long.parseLong(f[4]), f[5]));
                    case "R" -> handled.add(new Handled(f[1], f[2], Long.parseLong(f[3])));
                    case "A" -> acks.add(new Ack(f[1], f[2], "1".equals(f[3]), Long.parseLong(f[4])));
                    case "CRASH" -> crashes.add(new Crash(f[1], f[2], f[3], Long.parseLong(f[4])));
                    default -> throw new IllegalArgumentException("unknown event");
                }
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("cannot read the recorded line '" + line + "': " + e, e);
            }
            return this;
        }

        History build(QueueEnd end) {
            return new History(
                    acquires,
                    releases,
                    writes,
                    enqueued,
                    replicated,
                    enqueuedMs,
                    failovers,
                    enqueueUnknown,
                    handles,
                    handled,
                    acks,
                    crashes,
                    end);
        }
    }
}
