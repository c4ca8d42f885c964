package io.github.deferlock.cli;

import io.github.deferlock.delay.QueueStats;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock queue stats NAME}. */
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
                        new String[] {"at", q.at().toString()})));
        return ExitCode.OK;
    }
}
