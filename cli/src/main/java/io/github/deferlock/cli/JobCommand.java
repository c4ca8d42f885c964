package io.github.deferlock.cli;

import io.github.deferlock.delay.JobProgress;
import io.github.deferlock.inspect.JobView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock job get|cancel NAME ID}. */
@Command(name = "job", mixinStandardHelpOptions = true, description = "One job of a queue.")
final class JobCommand {
    @ParentCommand
    Main main;

    @Command(
            name = "get",
            mixinStandardHelpOptions = true,
            description =
                    "Shows a job: state, attempts, priority, times, last error, progress, headers and the start of its"
                            + " payload.")
    int get(
            @Parameters(paramLabel = "NAME", description = "the queue name") String name,
            @Parameters(paramLabel = "ID", description = "the job id") String id) {
        Session s = main.session;
        Optional<JobView> job = s.inspector().job(name, id);
        if (job.isEmpty()) {
            return s.notFound("queue '" + Text.safe(name) + "' has no job '" + Text.safe(id) + "'");
        }
        JobView j = job.get();
        if (s.json()) {
            s.printJson(JsonViews.job(j));
            return ExitCode.OK;
        }
        List<String[]> f = new ArrayList<>();
        f.add(new String[] {"queue", Text.safe(j.queue())});
        f.add(new String[] {"id", Text.safe(j.id())});
        f.add(new String[] {"state", JsonViews.kind(j.state())});
        f.add(new String[] {"attempts", Integer.toString(j.attempts())});
        f.add(new String[] {"priority", Integer.toString(j.priority())});
        f.add(new String[] {"due at", time(j.dueAt())});
        f.add(new String[] {"visible until", time(j.visibleUntil())});
        f.add(new String[] {"died at", time(j.diedAt())});
        f.add(new String[] {"last error", j.lastError().map(Text::safe).orElse("-")});
        f.add(new String[] {"progress", j.progress().map(JobCommand::progress).orElse("-")});
        for (Map.Entry<String, String> h : new java.util.TreeMap<>(j.headers()).entrySet()) {
            f.add(new String[] {"header " + Text.safe(h.getKey()), Text.safe(h.getValue())});
        }
        f.add(new String[] {
            "payload", j.payload().totalBytes() + " bytes" + (j.payload().truncated() ? ", first part shown" : "")
        });
        s.out().print(Text.fields(f));
        s.out().println(Text.safe(j.payload().text()));
        return ExitCode.OK;
    }

    @Command(
            name = "cancel",
            mixinStandardHelpOptions = true,
            description =
                    "Deletes a job in any state (a handler already running it is not stopped; its ack is refused).")
    int cancel(
            @Parameters(paramLabel = "NAME", description = "the queue name") String name,
            @Parameters(paramLabel = "ID", description = "the job id") String id) {
        Session s = main.session;
        return s.audited("cancel", name, List.of(id), () -> {
            boolean cancelled = s.inspector().cancel(name, id);
            if (!cancelled) {
                return new Session.Outcome(
                        s.notFound("queue '" + Text.safe(name) + "' has no job '" + Text.safe(id) + "'"),
                        "refused: no such job");
            }
            if (s.json()) {
                s.printJson(Session.object().put("queue", name).put("id", id).put("cancelled", true));
            } else {
                s.out().printf("cancelled job '%s' of queue '%s'%n", Text.safe(id), Text.safe(name));
            }
            return new Session.Outcome(ExitCode.OK, "done");
        });
    }

    /** {@code 40% "note" (attempt 1, 2026-01-01T00:00:00Z)}, the note left out when empty. */
    private static String progress(JobProgress p) {
        return p.percent() + "%" + (p.note().isEmpty() ? "" : " \"" + Text.safe(p.note()) + "\"") + " (attempt "
                + p.attempt() + ", " + p.at() + ")";
    }

    private static String time(Optional<Instant> t) {
        return t.map(Instant::toString).orElse("-");
    }
}
