package io.github.deferlock.cli;

import io.github.deferlock.inspect.DeadLetterPage;
import io.github.deferlock.inspect.DeadLetterView;
import io.github.deferlock.inspect.IdActionResult;
import io.github.deferlock.inspect.Inspector;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock dead list|requeue|purge NAME [IDS…]}. */
@Command(name = "dead", mixinStandardHelpOptions = true, description = "A queue's dead letters.")
final class DeadCommand {
    @ParentCommand
    Main main;

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description =
                    "Lists a queue's dead letters, oldest first, a page at a time. Exits 1 for a queue that never held a job and no worker announced.")
    int list(
            @Parameters(paramLabel = "NAME", description = "the queue name") String name,
            @Option(
                            names = "--offset",
                            paramLabel = "N",
                            defaultValue = "0",
                            description = "skip this many of the oldest (default: ${DEFAULT-VALUE})")
                    long offset,
            @Option(
                            names = "--limit",
                            paramLabel = "N",
                            defaultValue = "20",
                            description = "show at most this many, 1 to " + Inspector.MAX_PAGE
                                    + " (default: ${DEFAULT-VALUE})")
                    int limit) {
        Session s = main.session;
        if (s.existingQueue(name).isEmpty()) {
            return ExitCode.NOT_FOUND;
        }
        DeadLetterPage page = s.inspector().deadLetters(name, offset, limit);
        if (s.json()) {
            s.printJson(JsonViews.deadPage(page));
            return ExitCode.OK;
        }
        if (page.items().isEmpty()) {
            s.out()
                    .printf(
                            "queue '%s' has %d dead letters; none from position %d%n",
                            Text.safe(name), page.total(), page.offset() + 1);
            return ExitCode.OK;
        }
        s.out()
                .printf(
                        "queue '%s' has %d dead letters; showing %d to %d, oldest first%n",
                        Text.safe(name),
                        page.total(),
                        page.offset() + 1,
                        page.offset() + page.items().size());
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("ID", "ATTEMPTS", "DIED AT", "LAST ERROR", "PAYLOAD"));
        for (DeadLetterView d : page.items()) {
            rows.add(List.of(
                    Text.safe(d.id()),
                    Integer.toString(d.attempts()),
                    d.diedAt().toString(),
                    Text.cut(d.lastError(), 60),
                    Text.cut(d.payload().text(), 40)));
        }
        s.out().print(Text.table(rows));
        if (page.offset() + page.items().size() < page.total()) {
            s.out()
                    .printf(
                            "next page: --offset %d%n",
                            page.offset() + page.items().size());
        }
        return ExitCode.OK;
    }

    @Command(
            name = "requeue",
            mixinStandardHelpOptions = true,
            description =
                    "Moves the given dead letters back to due now, with their attempts reset. Only the ids given; every dead letter only with --all and --confirm set to the current count (the command tells it).")
    int requeue(
            @Parameters(paramLabel = "NAME", description = "the queue name") String name,
            @Parameters(paramLabel = "ID", arity = "0..*", description = "job ids (at most " + Inspector.MAX_IDS + ")")
                    List<String> ids,
            @Option(names = "--all", description = "requeue every dead letter (needs --confirm)") boolean all,
            @Option(
                            names = "--confirm",
                            paramLabel = "COUNT",
                            description = "with --all: the number of dead letters you expect to requeue")
                    Long confirm) {
        Session s = main.session;
        List<String> given = ids == null ? List.of() : ids;
        if (all) {
            if (!given.isEmpty()) {
                throw new UsageException("give either job ids or --all, not both");
            }
            return requeueAll(s, name, confirm);
        }
        if (confirm != null) {
            throw new UsageException("--confirm goes with --all");
        }
        if (given.isEmpty()) {
            throw new UsageException("give the ids of the dead letters to requeue, or --all --confirm COUNT");
        }
        return s.audited(
                "requeue",
                name,
                given,
                () -> report(s, name, "requeue", "requeued", s.inspector().requeueDead(name, given)));
    }

    private static int requeueAll(Session s, String name, Long confirm) {
        return s.audited("requeue-all", name, List.of(), () -> {
            long dead = s.inspector().queueStats(name).dead();
            if (confirm == null || confirm != dead) {
                throw new UsageException(String.format(
                        "queue '%s' has %d dead letters; to requeue them all, run again with --all --confirm %d%s",
                        Text.safe(name), dead, dead, confirm == null ? "" : " (not " + confirm + ")"));
            }
            long moved = s.inspector().requeueAllDead(name);
            if (s.json()) {
                s.printJson(Session.object()
                        .put("queue", name)
                        .put("action", "requeue-all")
                        .put("requeued", moved));
            } else {
                s.out().printf("requeued %d dead letters of queue '%s'%n", moved, Text.safe(name));
            }
            return new Session.Outcome(ExitCode.OK, "done " + moved);
        });
    }

    @Command(
            name = "purge",
            mixinStandardHelpOptions = true,
            description =
                    "Deletes the given dead letters, and only those (there is no purge-all here: a job that is not dead is never touched).")
    int purge(
            @Parameters(paramLabel = "NAME", description = "the queue name") String name,
            @Parameters(paramLabel = "ID", arity = "1..*", description = "job ids (at most " + Inspector.MAX_IDS + ")")
                    List<String> ids) {
        Session s = main.session;
        return s.audited(
                "purge",
                name,
                ids,
                () -> report(s, name, "purge", "purged", s.inspector().purgeDead(name, ids)));
    }

    private static Session.Outcome report(Session s, String queue, String action, String done, IdActionResult r) {
        if (s.json()) {
            s.printJson(JsonViews.action(queue, action, r));
        } else {
            s.out()
                    .printf(
                            "%s %d of %d in queue '%s'%s%n",
                            done,
                            r.applied().size(),
                            r.applied().size() + r.notFound().size(),
                            Text.safe(queue),
                            r.applied().isEmpty() ? "" : ": " + join(r.applied()));
            if (!r.notFound().isEmpty()) {
                s.out().printf("not dead letters (no such job, or not dead): %s%n", join(r.notFound()));
            }
        }
        return new Session.Outcome(
                r.notFound().isEmpty() ? ExitCode.OK : ExitCode.NOT_FOUND,
                "done " + r.applied().size() + ", not dead " + r.notFound().size());
    }

    private static String join(List<String> ids) {
        List<String> safe = new ArrayList<>();
        ids.forEach(id -> safe.add(Text.safe(id)));
        return String.join(", ", safe);
    }
}
