package io.github.deferlock.cli;

import io.github.deferlock.delay.QueueStats;
import java.util.List;
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
                    "Shows a queue's counts, read in one call: waiting (in the due set, including those scheduled later), due (their time has come), in flight, dead, and how long the oldest due job has waited.")
    int stats(@Parameters(paramLabel = "NAME", description = "the queue name") String name) {
        Session s = main.session;
        QueueStats q = s.inspector().queueStats(name);
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
