package io.github.deferlock.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.deferlock.inspect.AuditRecord;
import io.github.deferlock.inspect.Inspector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock audit [--limit N]}: the newest records of the audit stream (docs/ops.md, "Audit"). */
@Command(
        name = "audit",
        mixinStandardHelpOptions = true,
        description = "Lists the newest records of the audit stream " + Inspector.AUDIT_KEY + ", newest first: what"
                + " the CLI (and the dashboard) changed, when (Redis's clock), who, from where, on which queue and"
                + " ids, and how it ended. One XREVRANGE; read only.")
final class AuditCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Option(
            names = "--limit",
            paramLabel = "N",
            defaultValue = "20",
            description = "show at most this many, 1 to " + Inspector.MAX_PAGE + " (default: ${DEFAULT-VALUE})")
    int limit;

    @Override
    public Integer call() {
        Session s = main.session;
        if (limit < 1 || limit > Inspector.MAX_PAGE) {
            throw new UsageException("--limit must be within [1, " + Inspector.MAX_PAGE + "], not " + limit);
        }
        List<AuditRecord> records = s.inspector().auditTrail(limit);
        if (s.json()) {
            ArrayNode a = Session.object().arrayNode();
            for (AuditRecord r : records) {
                ObjectNode o = a.addObject()
                        .put("id", r.id())
                        .put("at", r.at().toString())
                        .put("source", r.source())
                        .put("actor", r.actor())
                        .put("from", r.from())
                        .put("action", r.action())
                        .put("queue", r.queue());
                ArrayNode ids = o.putArray("ids");
                r.ids().forEach(ids::add);
                o.put("idCount", r.idCount()).put("outcome", r.outcome());
            }
            s.printJson(Session.object().set("records", a));
            return ExitCode.OK;
        }
        if (records.isEmpty()) {
            s.out().printf("no audit records in %s%n", Inspector.AUDIT_KEY);
            return ExitCode.OK;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("AT", "SOURCE", "ACTOR", "FROM", "ACTION", "QUEUE", "IDS", "OUTCOME"));
        for (AuditRecord r : records) {
            List<String> ids = new ArrayList<>();
            r.ids().forEach(id -> ids.add(Text.safe(id)));
            String shown = Text.cut(String.join(",", ids), 40)
                    + (r.idCount() > r.ids().size()
                            ? " (+" + (r.idCount() - r.ids().size()) + ")"
                            : "");
            rows.add(List.of(
                    r.at().toString(),
                    Text.safe(r.source()),
                    Text.cut(r.actor(), 30),
                    Text.cut(r.from(), 40),
                    Text.safe(r.action()),
                    Text.cut(r.queue(), 40),
                    shown.isEmpty() ? "-" : shown,
                    Text.cut(r.outcome(), 80)));
        }
        s.out().print(Text.table(rows));
        return ExitCode.OK;
    }
}
