package io.github.deferlock.dashboard;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One action run (or refused) from the dashboard, as given to the audit log ({@link
 * DashboardServlet.Builder#auditLog}). Immutable.
 *
 * @param at when it was asked for (the dashboard's clock)
 * @param actor who: {@code "token"}, the basic-auth user, or {@code "anonymous"} for a refused request
 * @param remoteAddress the client address the servlet container reports
 * @param action {@code "requeue"}, {@code "purge"}, {@code "cancel"} or {@code "requeue-all"}
 * @param queue the queue acted on (as the request named it)
 * @param ids the job ids the request named (empty for requeue-all)
 * @param outcome what happened: e.g. {@code "done 3, missing 1"}, or {@code "refused: <reason>"}
 */
public record ActionRecord(
        Instant at, String actor, String remoteAddress, String action, String queue, List<String> ids, String outcome) {
    /** Validates the components and copies {@code ids}. */
    public ActionRecord {
        Objects.requireNonNull(at, "at cannot be null");
        Objects.requireNonNull(actor, "actor cannot be null");
        Objects.requireNonNull(remoteAddress, "remoteAddress cannot be null");
        Objects.requireNonNull(action, "action cannot be null");
        Objects.requireNonNull(queue, "queue cannot be null");
        ids = List.copyOf(ids);
        Objects.requireNonNull(outcome, "outcome cannot be null");
    }
}
