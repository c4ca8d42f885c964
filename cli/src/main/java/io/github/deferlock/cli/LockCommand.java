package io.github.deferlock.cli;

import io.github.deferlock.inspect.LockView;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock lock show NAME}. */
@Command(name = "lock", mixinStandardHelpOptions = true, description = "One lock.")
final class LockCommand {
    @ParentCommand
    Main main;

    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description =
                    "Shows one lock by name: held or free, holder token, remaining lease, fencing counter, waiters, and the work parked behind it (ordered DEFER): how many items, and the age of the oldest.")
    int show(
            @Parameters(paramLabel = "NAME", description = "the lock name, as given to RedisLocks.get") String name,
            @Option(
                            names = "--prefix",
                            defaultValue = "lock:",
                            description = "the RedisLocks key prefix (default: ${DEFAULT-VALUE})")
                    String prefix) {
        Session s = main.session;
        Optional<LockView> lock = s.inspector().lock(prefix, name);
        if (lock.isEmpty()) {
            return s.notFound("no lock '" + Text.safe(name) + "' under '" + Text.safe(prefix)
                    + "': free and never locked (no key, no fencing counter)");
        }
        LockView l = lock.get();
        if (s.json()) {
            s.printJson(JsonViews.lock(l));
            return ExitCode.OK;
        }
        s.out()
                .print(Text.fields(List.of(
                        new String[] {"name", Text.safe(l.name())},
                        new String[] {"key", Text.safe(l.key())},
                        new String[] {"state", l.held() ? "held" : "free"},
                        new String[] {"holder", l.holderToken().orElse("-")},
                        new String[] {
                            "lease left",
                            l.held() ? l.remainingLease().map(Text::duration).orElse("none (no TTL)") : "-"
                        },
                        new String[] {
                            "fencing counter",
                            l.fencingCounter().isPresent()
                                    ? Long.toString(l.fencingCounter().getAsLong())
                                    : "-"
                        },
                        new String[] {"waiters", l.waiters() ? "yes" : "no"},
                        new String[] {"parked", Long.toString(l.parked())},
                        new String[] {"oldest parked", Text.parkedAge(l)})));
        return ExitCode.OK;
    }
}
