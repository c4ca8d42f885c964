package io.github.deferlock.cli;

import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.inspect.Inspector;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock queue stats|pause|resume|keys NAME}. */
@Command(name = "queue", mixinStandardHelpOptions = true, description = "One queue.")
final class QueueCommand {
    @ParentCommand
    Main main;

    @Command(
            name = "stats",
            mixinStandardHelpOptions = true,
            description =
                    "Shows a queue's counts, read in one call: waiting (in the due set, including those scheduled later), due (their time has come), in flight, dead, and how long the oldest due job has waited. Exits 1 for a queue that never held a job and no worker announced.")
    int stats(@Parameters(paramLabel = "NAME", description = "the queue name") String name) {
        Session s = main.session;
        Optional<QueueStats> stats = s.existingQueue(name);
        if (stats.isEmpty()) {
            return ExitCode.NOT_FOUND;
        }
        QueueStats q = stats.get();
        if (s.json()) {
            s.printJson(JsonViews.stats(q));
            return ExitCode.OK;
        }
        s.out()
                .print(Text.fields(List.of(
                        new String[] {"queue", Text.safe(q.queue())},
                        new String[] {"waiting", Long.toString(q.waiting())},
                        new String[] {"due", Long.toString(q.due())},
                        new String[] {"in flight", Long.toString(q.inFlight())},
                        new String[] {"dead", Long.toString(q.dead())},
                        new String[] {"oldest due", Text.duration(q.oldestDueAge())},
                        new String[] {"paused", q.paused() ? "since " + q.pausedSince() : "no"},
                        new String[] {"at", q.at().toString()})));
        return ExitCode.OK;
    }

    @Command(
            name = "pause",
            mixinStandardHelpOptions = true,
            description =
                    "Pauses a queue for every process: no worker claims a job until `queue resume`; jobs already claimed finish, enqueues go on, a worker started meanwhile stays idle. Exits 1 for a queue that never held a job and no worker announced.")
    int pause(@Parameters(paramLabel = "NAME", description = "the queue name") String name) {
        return pauseOrResume(name, true);
    }

    @Command(
            name = "resume",
            mixinStandardHelpOptions = true,
            description =
                    "Resumes a paused queue: its workers claim again at once. Exits 1 for a queue that never held a job and no worker announced.")
    int resume(@Parameters(paramLabel = "NAME", description = "the queue name") String name) {
        return pauseOrResume(name, false);
    }

    @Command(
            name = "keys",
            mixinStandardHelpOptions = true,
            description =
                    "Lists the concurrency keys of a queue that have jobs held back because the key is at its limit, most held first: held jobs, jobs of the key claimed now, and its limit. Exits 1 for a queue that never held a job and no worker announced.")
    int keys(
            @Parameters(paramLabel = "NAME", description = "the queue name") String name,
            @Option(
                            names = "--top",
                            defaultValue = "20",
                            description = "how many keys at most, 1 to 10000 (default: ${DEFAULT-VALUE})")
                    int top) {
        Session s = main.session;
        if (s.existingQueue(name).isEmpty()) {
            return ExitCode.NOT_FOUND;
        }
        if (top < 1 || top > 10_000) {
            throw new UsageException("--top must be within [1, 10000], not " + top);
        }
        List<Inspector.HeldKey> keys = s.inspector().heldKeys(name, top);
        if (s.json()) {
            com.fasterxml.jackson.databind.node.ArrayNode array =
                    Session.object().arrayNode();
            for (Inspector.HeldKey k : keys) {
                array.add(Session.object()
                        .put("key", k.key())
                        .put("held", k.held())
                        .put("running", k.running())
                        .put("limit", k.limit()));
            }
            s.printJson(Session.object().put("queue", name).set("keys", array));
            return ExitCode.OK;
        }
        if (keys.isEmpty()) {
            s.out().printf("no jobs held for their concurrency key in queue '%s'%n", Text.safe(name));
            return ExitCode.OK;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("KEY", "HELD", "RUNNING", "LIMIT"));
        for (Inspector.HeldKey k : keys) {
            rows.add(List.of(
                    Text.safe(k.key()),
                    Long.toString(k.held()),
                    Long.toString(k.running()),
                    k.limit() < 0 ? "none" : Integer.toString(k.limit())));
        }
        s.out().print(Text.table(rows));
        return ExitCode.OK;
    }

    private int pauseOrResume(String name, boolean pause) {
        Session s = main.session;
        if (s.existingQueue(name).isEmpty()) {
            return ExitCode.NOT_FOUND;
        }
        boolean changed = pause ? s.inspector().pause(name) : s.inspector().resume(name);
        String action = pause ? "pause" : "resume";
        if (s.json()) {
            s.printJson(Session.object()
                    .put("queue", name)
                    .put("action", action)
                    .put("changed", changed)
                    .put("paused", pause));
        } else if (changed) {
            s.out().printf("%s queue '%s'%n", pause ? "paused" : "resumed", Text.safe(name));
        } else {
            s.out().printf("queue '%s' was %s%n", Text.safe(name), pause ? "paused already" : "not paused");
        }
        return ExitCode.OK;
    }
}
