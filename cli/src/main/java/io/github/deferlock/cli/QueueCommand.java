package io.github.deferlock.cli;

import io.github.deferlock.delay.QueueRateLimit;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.inspect.Inspector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock queue stats|pause|resume|rate-limit|keys NAME}. */
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
        Optional<QueueRateLimit> limit = s.inspector().rateLimit(name);
        if (s.json()) {
            var json = JsonViews.stats(q);
            limit.ifPresent(l -> json.set("rateLimit", rateLimitJson(l)));
            s.printJson(json);
            return ExitCode.OK;
        }
        List<String[]> rows = new ArrayList<>(List.of(
                new String[] {"queue", Text.safe(q.queue())},
                new String[] {"waiting", Long.toString(q.waiting())},
                new String[] {"due", Long.toString(q.due())},
                new String[] {"in flight", Long.toString(q.inFlight())},
                new String[] {"dead", Long.toString(q.dead())},
                new String[] {"oldest due", Text.duration(q.oldestDueAge())},
                new String[] {"paused", q.paused() ? "since " + q.pausedSince() : "no"}));
        // shown only for a limited queue (queue rate-limit)
        limit.ifPresent(l -> rows.add(new String[] {"rate limit", l.toString()}));
        // shown only while jobs are held back at their concurrency key's limit ('queue keys' lists the keys)
        if (q.held() > 0) {
            rows.add(new String[] {"held", q.held() + " (at their concurrency key's limit; see 'queue keys')"});
        }
        rows.add(new String[] {"at", q.at().toString()});
        s.out().print(Text.fields(rows));
        return ExitCode.OK;
    }

    private static com.fasterxml.jackson.databind.node.ObjectNode rateLimitJson(QueueRateLimit l) {
        return Session.object()
                .put("rate", l.rate())
                .put("intervalMillis", l.interval().toMillis())
                .put("burst", l.burst());
    }

    private static final Pattern INTERVAL = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    /** {@code 100ms}, {@code 1s}, {@code 5m}, {@code 1h}, {@code 1d}, or an ISO-8601 duration ({@code PT1S}). */
    static Duration interval(String text) {
        Matcher m = INTERVAL.matcher(text);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(text);
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "interval must be like 100ms, 1s, 5m, 1h, 1d or PT1S, not '" + Text.safe(text) + "'");
        }
    }

    @Command(
            name = "rate-limit",
            mixinStandardHelpOptions = true,
            description =
                    "Shows, sets or removes a queue's rate limit: at most RATE job starts per INTERVAL across every worker of every process, checked in the claim script on the server's clock (GCRA); jobs over it stay due and spend no attempt. Without RATE it shows the limit. Exits 1 for a queue that never held a job and no worker announced.")
    int rateLimit(
            @Parameters(index = "0", paramLabel = "NAME", description = "the queue name") String name,
            @Parameters(index = "1", arity = "0..1", paramLabel = "RATE", description = "starts per interval")
                    Integer rate,
            @Parameters(
                            index = "2",
                            arity = "0..1",
                            paramLabel = "INTERVAL",
                            description = "e.g. 1s, 100ms, 1m, 1h, 1d; default 1s")
                    String interval,
            @Option(names = "--burst", description = "starts allowed at once after a quiet spell; default RATE / 20")
                    Integer burst,
            @Option(names = "--remove", description = "removes the limit") boolean remove) {
        Session s = main.session;
        if (remove && rate != null) {
            throw new IllegalArgumentException("--remove takes no RATE");
        }
        if (!remove && rate == null) {
            if (s.existingQueue(name).isEmpty()) {
                return ExitCode.NOT_FOUND;
            }
            printRateLimit(s, name, null);
            return ExitCode.OK;
        }
        // bad arguments are refused before anything is asked of Redis (and so not audited)
        QueueRateLimit wanted = null;
        if (!remove) {
            QueueRateLimit limit =
                    QueueRateLimit.of(rate, interval == null ? Duration.ofSeconds(1) : interval(interval));
            wanted = burst == null ? limit : limit.withBurst(burst);
        }
        QueueRateLimit set = wanted;
        return s.audited("rate-limit", name, List.of(), () -> {
            if (s.existingQueue(name).isEmpty()) {
                return new Session.Outcome(ExitCode.NOT_FOUND, "refused: no such queue");
            }
            boolean changed = set == null
                    ? s.inspector().removeRateLimit(name)
                    : s.inspector().setRateLimit(name, set);
            printRateLimit(s, name, changed);
            String what = set == null ? "removed" : "set " + set;
            return new Session.Outcome(ExitCode.OK, "done: " + (changed ? what : what + ", unchanged"));
        });
    }

    private static void printRateLimit(Session s, String name, Boolean changed) {
        Optional<QueueRateLimit> now = s.inspector().rateLimit(name);
        if (s.json()) {
            var json = Session.object().put("queue", name);
            if (changed != null) {
                json.put("changed", changed);
            }
            if (now.isPresent()) {
                json.set("rateLimit", rateLimitJson(now.get()));
            } else {
                json.putNull("rateLimit");
            }
            s.printJson(json);
        } else {
            s.out()
                    .printf(
                            "queue '%s' %s%n",
                            Text.safe(name),
                            now.map(l -> "rate limit: " + l).orElse("has no rate limit")
                                    + (changed == null ? "" : changed ? " (changed)" : " (unchanged)"));
        }
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
        String action = pause ? "pause" : "resume";
        return s.audited(action, name, List.of(), () -> {
            if (s.existingQueue(name).isEmpty()) {
                return new Session.Outcome(ExitCode.NOT_FOUND, "refused: no such queue");
            }
            boolean changed = pause ? s.inspector().pause(name) : s.inspector().resume(name);
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
            return new Session.Outcome(
                    ExitCode.OK, changed ? "done" : pause ? "done: paused already" : "done: not paused");
        });
    }
}
