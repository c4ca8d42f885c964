package io.github.deferlock.inspect;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One state-changing action of an ops tool, as kept in the audit stream {@value Inspector#AUDIT_KEY} ({@link
 * Inspector#audit}, {@link Inspector#auditTrail}): who ran what on which queue and ids, from where, and how it
 * ended. Immutable.
 *
 * @param id the stream entry id ({@code <ms>-<seq>}), which orders the records
 * @param at when Redis stored it (the server's clock: the entry id's time)
 * @param source the tool: {@code "cli"} or {@code "dashboard"}
 * @param actor who: the CLI's {@code --actor} or OS user; the dashboard's {@code token}, basic-auth user or
 *     {@code anonymous}
 * @param from where: the CLI's {@code <OS user>@<host>}; the dashboard's client address
 * @param action what, e.g. {@code pause}, {@code resume}, {@code requeue}, {@code requeue-all}, {@code purge},
 *     {@code cancel}, {@code rate-limit}
 * @param queue the queue acted on, as given (empty when none was named)
 * @param ids the job ids named, the first ones only when they exceed {@value Inspector#AUDIT_ID_BYTES} bytes
 *     of UTF-8 ({@code idCount} says how many were named)
 * @param idCount how many ids were named in all
 * @param outcome how it ended: {@code done}, {@code done: <detail>}, {@code refused: <reason>} or {@code failed:
 *     <reason>}
 */
public record AuditRecord(
        String id,
        Instant at,
        String source,
        String actor,
        String from,
        String action,
        String queue,
        List<String> ids,
        int idCount,
        String outcome) {
    /** Validates the components and copies {@code ids}. */
    public AuditRecord {
        Objects.requireNonNull(id, "id cannot be null");
        Objects.requireNonNull(at, "at cannot be null");
        Objects.requireNonNull(source, "source cannot be null");
        Objects.requireNonNull(actor, "actor cannot be null");
        Objects.requireNonNull(from, "from cannot be null");
        Objects.requireNonNull(action, "action cannot be null");
        Objects.requireNonNull(queue, "queue cannot be null");
        ids = List.copyOf(ids);
        Objects.requireNonNull(outcome, "outcome cannot be null");
    }

    /**
     * The record on one line, every text escaped with {@link OpsText#safe} so no name or reason can forge a
     * line: {@code action=… actor=… from=… queue=… ids=[…] outcome=…} (the dashboard's audit line has the same
     * shape), with {@code (+N more)} after the ids when some were not kept.
     */
    public String logLine() {
        StringBuilder b = new StringBuilder(64)
                .append("action=")
                .append(OpsText.safe(action))
                .append(" actor=")
                .append(OpsText.safe(actor))
                .append(" from=")
                .append(OpsText.safe(from))
                .append(" queue=")
                .append(OpsText.safe(queue))
                .append(" ids=[");
        for (int i = 0; i < ids.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(OpsText.safe(ids.get(i)));
        }
        b.append(']');
        if (idCount > ids.size()) {
            b.append(" (+").append(idCount - ids.size()).append(" more)");
        }
        return b.append(" outcome=").append(OpsText.safe(outcome)).toString();
    }
}
