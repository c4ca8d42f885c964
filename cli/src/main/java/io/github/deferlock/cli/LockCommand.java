package io.github.deferlock.cli;

import io.github.deferlock.inspect.LockView;
import io.github.deferlock.inspect.PermitsView;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock lock show NAME} and {@code deferlock lock permits NAME}. */
@Command(name = "lock", mixinStandardHelpOptions = true, description = "One lock, or one permits name.")
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

    @Command(
            name = "permits",
            mixinStandardHelpOptions = true,
            description =
                    "Shows one permits name (RedisLocks.permits): its live holders by slot (fencing token, remaining lease), the limit they were granted under, queued waiters and the fencing counter.")
    int permits(
            @Parameters(paramLabel = "NAME", description = "the permits name, as given to RedisLocks.permits")
                    String name,
            @Option(
                            names = "--prefix",
                            defaultValue = "lock:",
                            description = "the RedisLocks key prefix (default: ${DEFAULT-VALUE})")
                    String prefix) {
        Session s = main.session;
        Optional<PermitsView> permits = s.inspector().permits(prefix, name);
        if (permits.isEmpty()) {
            return s.notFound("no permits '" + Text.safe(name) + "' under '" + Text.safe(prefix)
                    + "': no live holder, no waiter, never used (or the name is held as a lock)");
        }
        PermitsView p = permits.get();
        if (s.json()) {
            s.printJson(JsonViews.permits(p));
            return ExitCode.OK;
        }
        List<String[]> fields = new ArrayList<>();
        fields.add(new String[] {"name", Text.safe(p.name())});
        fields.add(new String[] {"key", Text.safe(p.key())});
        fields.add(new String[] {
            "limit", p.limit().isPresent() ? Integer.toString(p.limit().getAsInt()) : "-"
        });
        fields.add(new String[] {"holders", Integer.toString(p.holders().size())});
        for (PermitsView.Holder h : p.holders()) {
            fields.add(new String[] {
                "slot " + h.slot(),
                "fencing token " + h.fencingToken() + ", lease left " + Text.duration(h.remainingLease())
            });
        }
        fields.add(new String[] {"waiters", Long.toString(p.waiters())});
        fields.add(new String[] {
            "fencing counter",
            p.fencingCounter().isPresent() ? Long.toString(p.fencingCounter().getAsLong()) : "-"
        });
        s.out().print(Text.fields(fields));
        return ExitCode.OK;
    }
}
