package io.github.deferlock.cli;

import io.github.deferlock.inspect.RegistryEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock queues}: what announced itself in the registry. */
@Command(
        name = "queues",
        mixinStandardHelpOptions = true,
        description =
                "Lists the queues, deferral queues and lock prefixes that announced themselves in the registry (deferlock:registry and <prefix>registry): workers refresh their queue every 30 s, RedisLocks its prefix on use; entries not seen for a day drop out.")
final class QueuesCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Override
    public Integer call() {
        Session s = main.session;
        List<RegistryEntry> entries = s.inspector().registered();
        if (s.json()) {
            s.printJson(JsonViews.registry(entries));
            return ExitCode.OK;
        }
        if (entries.isEmpty()) {
            s.out().println("nothing registered (no worker, deferral queue or RedisLocks seen in the last day)");
            return ExitCode.OK;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("KIND", "NAME", "LAST SEEN"));
        Instant now = Instant.now();
        for (RegistryEntry e : entries) {
            Duration ago = Duration.between(e.lastSeen(), now);
            rows.add(List.of(
                    JsonViews.kind(e.kind()),
                    Text.safe(e.name()),
                    e.lastSeen() + " (" + Text.duration(ago.isNegative() ? Duration.ZERO : ago) + " ago)"));
        }
        s.out().print(Text.table(rows));
        return ExitCode.OK;
    }
}
