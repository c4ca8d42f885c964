package io.github.deferlock.cli;

import io.github.deferlock.inspect.ConflictReport;
import io.github.deferlock.inspect.ConflictView;
import io.github.deferlock.inspect.Inspector;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock conflicts}: the most contended locks (docs/ops.md, "Conflict stats"). */
@Command(
        name = "conflicts",
        mixinStandardHelpOptions = true,
        description = "The most contended locks over the last minutes: conflicts and conflicts per second per"
                + " strategy (THROW, SLEEP_RETRY, DEFER), processes waiting, items parked and the age of the"
                + " oldest, the holder and its remaining lease. Reads the per-minute conflict counters that"
                + " LockRunner and ConflictAwareHandler keep; no scan.")
final class ConflictsCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Option(
            names = "--prefix",
            paramLabel = "PREFIX",
            defaultValue = "lock:",
            description = "the RedisLocks key prefix (default: ${DEFAULT-VALUE})")
    String prefix;

    @Option(
            names = "--minutes",
            paramLabel = "N",
            defaultValue = "5",
            description = "the last N minutes, the current one included, 1 to " + Inspector.MAX_CONFLICT_MINUTES
                    + " (default: ${DEFAULT-VALUE})")
    int minutes;

    @Option(
            names = "--top",
            paramLabel = "K",
            defaultValue = "20",
            description = "show the K most contended locks, 1 to " + Inspector.MAX_CONFLICT_TOP
                    + " (default: ${DEFAULT-VALUE})")
    int top;

    @Override
    public Integer call() {
        Session s = main.session;
        ConflictReport r = s.inspector().conflicts(prefix, minutes, top);
        if (s.json()) {
            s.printJson(JsonViews.conflicts(r));
            return ExitCode.OK;
        }
        if (r.locks().isEmpty()) {
            s.out().printf("no conflict counted under '%s' in the last %d minute(s)%n", Text.safe(prefix), minutes);
            return ExitCode.OK;
        }
        s.out()
                .printf(
                        "conflicts under '%s' over the last %s (since %s), most first%n",
                        Text.safe(prefix), Text.duration(r.window()), r.since());
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of(
                "NAME", "THROW", "SLEEP_RETRY", "DEFER", "WAITERS", "PARKED", "OLDEST PARKED", "HOLDER", "LEASE LEFT"));
        for (ConflictView v : r.locks()) {
            rows.add(List.of(
                    Text.safe(v.name()),
                    count(r, v.throwConflicts()),
                    count(r, v.sleepRetryConflicts()),
                    count(r, v.deferConflicts()),
                    Long.toString(v.waiters()),
                    Long.toString(v.parked()),
                    v.oldestParkedAge().map(Text::duration).orElse("-"),
                    v.holderToken().orElse("free"),
                    v.remainingLease().map(Text::duration).orElse("-")));
        }
        s.out().print(Text.table(rows));
        s.out().println("(when a hold began is not stored: LEASE LEFT is the holder's remaining lease)");
        return ExitCode.OK;
    }

    private static String count(ConflictReport r, long n) {
        return n + " (" + String.format(Locale.ROOT, "%.2f", r.perSecond(n)) + "/s)";
    }
}
