package io.github.deferlock.cli;

import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.inspect.LockPage;
import io.github.deferlock.inspect.LockView;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock locks list PREFIX}. */
@Command(name = "locks", mixinStandardHelpOptions = true, description = "The locks under a key prefix.")
final class LocksCommand {
    @ParentCommand
    Main main;

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description =
                    "Lists the held locks under a key prefix (found with SCAN, on every master of a cluster), sorted by name: holder token, remaining lease, fencing counter, whether another process waits, and the work parked behind the key (ordered DEFER): how many items, and the age of the oldest.")
    int list(
            @Parameters(paramLabel = "PREFIX", description = "the RedisLocks key prefix, e.g. lock:") String prefix,
            @picocli.CommandLine.Option(
                            names = "--limit",
                            paramLabel = "N",
                            defaultValue = "100",
                            description = "show at most this many, 1 to " + Inspector.MAX_LOCKS
                                    + " (default: ${DEFAULT-VALUE})")
                    int limit) {
        Session s = main.session;
        LockPage page = s.inspector().locks(prefix, limit);
        if (s.json()) {
            var o = Session.object().put("prefix", prefix).put("more", page.more());
            var a = o.putArray("locks");
            page.locks().forEach(l -> a.add(JsonViews.lock(l)));
            s.printJson(o);
            return ExitCode.OK;
        }
        if (page.locks().isEmpty()) {
            s.out().printf("no lock held under '%s'%n", Text.safe(prefix));
            return ExitCode.OK;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("NAME", "HOLDER", "LEASE LEFT", "FENCING COUNTER", "WAITERS", "PARKED", "OLDEST PARKED"));
        for (LockView l : page.locks()) {
            rows.add(List.of(
                    Text.safe(l.name()),
                    l.isPermits()
                            ? l.permitHolders() + " of " + l.permitLimit().getAsInt() + " permits"
                            : l.holderToken().orElse("-"),
                    l.remainingLease().map(Text::duration).orElse("none"),
                    l.fencingCounter().isPresent()
                            ? Long.toString(l.fencingCounter().getAsLong())
                            : "-",
                    l.waiters() ? "yes" : "no",
                    Long.toString(l.parked()),
                    Text.parkedAge(l)));
        }
        s.out().print(Text.table(rows));
        if (page.more()) {
            s.out().printf("more locks exist; raise --limit (now %d)%n", limit);
        }
        return ExitCode.OK;
    }
}
