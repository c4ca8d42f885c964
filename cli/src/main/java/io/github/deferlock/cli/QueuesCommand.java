package io.github.deferlock.cli;

import io.github.deferlock.inspect.EntryKind;
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
                "Lists the queues, deferral queues and lock prefixes that announced themselves in the registry (deferlock:registry and <prefix>registry): workers refresh their queue every 30 s, RedisLocks its prefix on use; entries not seen for a day drop out. STATE says whether a queue is paused (deferlock queue pause/resume).")
final class QueuesCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Override
    public Integer call() {
        Session s = main.session;
        List<RegistryEntry> entries = s.inspector().registered();
        List<Boolean> paused = new ArrayList<>(entries.size());
        for (RegistryEntry e : entries) { // one EXISTS per queue
            paused.add(e.kind() == EntryKind.LOCK_PREFIX ? null : s.inspector().isPaused(e.name()));
        }
        if (s.json()) {
            s.printJson(JsonViews.registry(entries, paused));
            return ExitCode.OK;
        }
        if (entries.isEmpty()) {
            s.out().println("nothing registered (no worker, deferral queue or RedisLocks seen in the last day)");
            return ExitCode.OK;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("KIND", "NAME", "STATE", "LAST SEEN"));
        Instant now = Instant.now();
        for (int i = 0; i < entries.size(); i++) {
            RegistryEntry e = entries.get(i);
            Duration ago = Duration.between(e.lastSeen(), now);
            Boolean p = paused.get(i);
            rows.add(List.of(
                    JsonViews.kind(e.kind()),
                    Text.safe(e.name()),
                    p == null ? "-" : p ? "paused" : "running",
                    e.lastSeen() + " (" + Text.duration(ago.isNegative() ? Duration.ZERO : ago) + " ago)"));
        }
        s.out().print(Text.table(rows));
        return ExitCode.OK;
    }
}
