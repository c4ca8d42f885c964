package io.github.deferlock.dashboard.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the dashboard reads from Redis and the actions it runs, in the shapes its JSON API serves. Implemented
 * over the ops read model of {@code deferlock-inspect}. Implementations are threadsafe.
 */
public interface ReadModel {

    /** One queue's figures. {@code enqueuedTotal} and {@code handledTotal} are running counts, or -1 when unknown. */
    record QueueRow(
            String name, long due, long inFlight, long dead, long oldestDueAgeMs, long enqueuedTotal, long handledTotal) {}

    /** One dead letter, with the full stored payload (the API layer cuts it). */
    record DeadRow(String id, int attempts, long diedAt, String error, String payload) {}

    /** A page of dead letters, oldest first, and how many there are. */
    record DeadPage(long total, List<DeadRow> items) {}

    /** One job; times are epoch ms or null. */
    record JobView(
            String id,
            String queue,
            String state,
            int attempts,
            Long dueAt,
            Long visibleUntil,
            Long diedAt,
            String lastError,
            Map<String, String> headers,
            String payload) {}

    /** One held lock. */
    record LockRow(String name, String holderToken, long remainingLeaseMs, Long fencingToken, boolean waiting) {}

    /** Locks under a prefix; {@code more} when the list was cut. */
    record LockPage(List<LockRow> locks, boolean more) {}

    /** The ids an action changed and those it did not find (no longer dead, already gone). */
    record ActionResult(List<String> done, List<String> missing) {}

    /** Every queue the registry knows, by name. */
    List<QueueRow> queues();

    /** The dead letters of {@code queue} from {@code offset} (oldest first), at most {@code limit}. */
    DeadPage dead(String queue, long offset, int limit);

    /** A job of {@code queue}, or empty when there is none with this id. */
    Optional<JobView> job(String queue, String id);

    /** Held locks whose names start with {@code prefix}, at most {@code limit}. */
    LockPage locks(String prefix, int limit);

    /** Moves exactly the dead letters {@code ids} of {@code queue} back to due. */
    ActionResult requeueDead(String queue, List<String> ids);

    /** Deletes exactly the dead letters {@code ids} of {@code queue}. */
    ActionResult purgeDead(String queue, List<String> ids);

    /** Cancels (deletes) a job in any state; true when it existed. */
    boolean cancel(String queue, String id);

    /** Requeues every dead letter of {@code queue}; returns how many moved. */
    long requeueAllDead(String queue);
}
