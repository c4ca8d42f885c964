package io.github.deferlock.dashboard;

import io.github.deferlock.inspect.OpsText;
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
 * @param action {@code "requeue"}, {@code "purge"}, {@code "cancel"}, {@code "requeue-all"}, {@code "pause"} or
 *     {@code "resume"}
 * @param queue the queue acted on, as the request named it, also when refused (empty when the body named none or
 *     was not JSON)
 * @param ids the job ids the request named, also when refused (empty for requeue-all, or when the body named
 *     none or was not JSON)
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

    /**
     * The record as the default audit log writes it, on one line: {@code action=… actor=… from=… queue=…
     * ids=[…] outcome=…}. Queue names, ids and outcomes may hold CR/LF or terminal escapes (docs/names.md), so
     * every text is escaped as the CLI escapes its output ({@link OpsText#safe}): no record can forge a line.
     */
    public String logLine() {
        StringBuilder b = new StringBuilder(64)
                .append("action=")
                .append(OpsText.safe(action))
                .append(" actor=")
                .append(OpsText.safe(actor))
                .append(" from=")
                .append(OpsText.safe(remoteAddress))
                .append(" queue=")
                .append(OpsText.safe(queue))
                .append(" ids=[");
        for (int i = 0; i < ids.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(OpsText.safe(ids.get(i)));
        }
        return b.append("] outcome=").append(OpsText.safe(outcome)).toString();
    }
}
