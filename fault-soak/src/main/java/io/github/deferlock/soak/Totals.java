package io.github.deferlock.soak;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Sums the figures of many schedules for the final report. Not threadsafe. */
final class Totals {
    /** The kinds every failover loss is one of (see {@link Checker}). */
    static final java.util.List<String> LOSS_KINDS = java.util.List.of("enqueue", "ack", "lock");

    private final Map<Fault.Kind, Long> faults = new EnumMap<>(Fault.Kind.class);
    private final Map<String, Long> failoverLosses = new java.util.LinkedHashMap<>();
    private final Topology topology;
    long enqueuedReplicated;
    long failovers;
    long failoversUnsynced;
    long schedules;
    long schedulesWithViolations;
    long harnessErrors;
    long locksAcquired;
    long holdsLost;
    long writesAccepted;
    long writesRejected;
    long staleWritesSent;
    long staleWritesAccepted;
    long enqueued;
    long enqueueUnknown;
    long handlerRuns;
    long jobsHandled;
    long jobsHandledMoreThanOnce;
    long acked;
    long dead;
    long violations;
    long maxScheduleMs;
    long totalScheduleMs;
    long maxSettleMs;

    /** Totals of standalone schedules. */
    Totals() {
        this(Topology.STANDALONE);
    }

    /** Totals of schedules on {@code topology} (it says which fault kinds the report lists). */
    Totals(Topology topology) {
        this.topology = topology;
        LOSS_KINDS.forEach(k -> failoverLosses.put(k, 0L));
    }

    /** Writes lost in failovers, all kinds. */
    long failoverLosses() {
        return failoverLosses.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Writes lost in failovers of {@code kind}. */
    long failoverLosses(String kind) {
        return failoverLosses.getOrDefault(kind, 0L);
    }

    /** Adds one schedule's figures. */
    void add(ScheduleRun.Result r) {
        schedules++;
        r.faults().forEach((k, n) -> faults.merge(k, (long) n, Long::sum));
        History h = r.history();
        locksAcquired += h.acquires().size();
        holdsLost +=
                h.releases().stream().filter(x -> x.outcome().equals("lost")).count();
        writesAccepted += h.writes().stream().filter(History.Write::accepted).count();
        writesRejected += h.writes().stream().filter(w -> !w.accepted()).count();
        staleWritesSent += h.writes().stream().filter(w -> !w.held()).count();
        staleWritesAccepted +=
                h.writes().stream().filter(w -> !w.held() && w.accepted()).count();
        enqueued += h.enqueued().size();
        enqueuedReplicated += h.replicated().size();
        failovers += h.failovers().size();
        failoversUnsynced += h.failovers().stream().filter(f -> !f.synced()).count();
        r.failoverLosses().forEach((k, n) -> failoverLosses.merge(k, (long) n, Long::sum));
        enqueueUnknown += h.enqueueUnknown().size();
        handlerRuns += h.handled().size();
        Map<String, Integer> runsPerJob = new HashMap<>();
        h.handled().forEach(x -> runsPerJob.merge(x.id(), 1, Integer::sum));
        jobsHandled += runsPerJob.size();
        jobsHandledMoreThanOnce +=
                runsPerJob.values().stream().filter(n -> n > 1).count();
        Set<String> remaining = new HashSet<>(h.end().states().keySet());
        acked += h.enqueued().stream().filter(id -> !remaining.contains(id)).count();
        dead += h.end().deadReasons().size();
        violations += r.violations().size();
        if (!r.violations().isEmpty()) {
            schedulesWithViolations++;
        }
        maxScheduleMs = Math.max(maxScheduleMs, r.elapsedMs());
        totalScheduleMs += r.elapsedMs();
        maxSettleMs = Math.max(maxSettleMs, r.settleMs());
    }

    /** The report, several lines. */
    String render(long wallMs) {
        StringBuilder sb = new StringBuilder();
        sb.append("schedules: ")
                .append(schedules)
                .append(" (")
                .append(schedulesWithViolations)
                .append(" with violations, ")
                .append(harnessErrors)
                .append(" harness errors), wall time ")
                .append(seconds(wallMs))
                .append(", slowest schedule ")
                .append(seconds(maxScheduleMs))
                .append(", mean ")
                .append(seconds(schedules == 0 ? 0 : totalScheduleMs / schedules))
                .append(", longest drain after the faults ")
                .append(seconds(maxSettleMs))
                .append('\n');
        long all = faults.values().stream().mapToLong(Long::longValue).sum();
        sb.append("faults injected: ").append(all);
        for (Fault.Kind k : topology.kinds()) {
            sb.append(", ")
                    .append(k.name().toLowerCase(java.util.Locale.ROOT))
                    .append(' ')
                    .append(faults.getOrDefault(k, 0L));
        }
        sb.append('\n');
        sb.append("locks: ")
                .append(locksAcquired)
                .append(" acquired, ")
                .append(holdsLost)
                .append(" holds lost; fenced writes: ")
                .append(writesAccepted)
                .append(" accepted, ")
                .append(writesRejected)
                .append(" rejected; ")
                .append(staleWritesSent)
                .append(" sent by holds that knew they were lost, of which ")
                .append(staleWritesAccepted)
                .append(" accepted (no newer holder had written yet)\n");
        sb.append("jobs: ")
                .append(enqueued)
                .append(" enqueued (acknowledged; ")
                .append(enqueuedReplicated)
                .append(" of them by every replica too) + ")
                .append(enqueueUnknown)
                .append(" with unknown outcome; ")
                .append(handlerRuns)
                .append(" handler runs, ")
                .append(jobsHandled)
                .append(" distinct jobs handled, ")
                .append(jobsHandledMoreThanOnce)
                .append(" handled more than once; ")
                .append(acked)
                .append(" acked (gone after the settle), ")
                .append(dead)
                .append(" dead-lettered\n");
        sb.append("violations: ").append(violations).append('\n');
        sb.append("failover windows: ")
                .append(failovers)
                .append(" (")
                .append(failoversUnsynced)
                .append(" whose replicas did not confirm the WAIT before the kill)")
                .append("; writes lost in failover: ")
                .append(failoverLosses());
        failoverLosses.forEach((k, n) -> sb.append(", ").append(k).append(' ').append(n));
        sb.append(" (writes without replica acknowledgement, not violations)\n");
        sb.append("summary: topology ")
                .append(topology.option())
                .append(", faults ")
                .append(all);
        for (Fault.Kind k : topology.kinds()) {
            sb.append(' ')
                    .append(k.name().toLowerCase(java.util.Locale.ROOT))
                    .append('=')
                    .append(faults.getOrDefault(k, 0L));
        }
        sb.append(", violations ")
                .append(violations)
                .append(", lost in failover ")
                .append(failoverLosses());
        failoverLosses.forEach((k, n) -> sb.append(' ').append(k).append('=').append(n));
        sb.append(", harness errors ").append(harnessErrors).append('\n');
        return sb.toString();
    }

    private static String seconds(long ms) {
        return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
