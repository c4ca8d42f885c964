package io.github.deferlock.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.github.deferlock.delay.ScheduleInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code deferlock schedules NAME}: a queue's recurring schedules (docs/delay-queue.md, "Recurring schedules"). */
@Command(
        name = "schedules",
        mixinStandardHelpOptions = true,
        description = "Lists a queue's recurring schedules: id, spec (as stored, e.g. cron:0 9 * * MON-FRI|Europe/Paris"
                + " or rate:PT5M), missed-slot policy and next fire time (UTC). Reads the schedules hash and the"
                + " next-slot zset; no scan.")
final class SchedulesCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(paramLabel = "NAME", description = "the queue name")
    String name;

    @Override
    public Integer call() {
        Session s = main.session;
        List<ScheduleInfo> list = s.inspector().schedules(name);
        if (s.json()) {
            ArrayNode a = Session.object().arrayNode();
            for (ScheduleInfo i : list) {
                a.addObject()
                        .put("id", i.id())
                        .put("spec", i.spec())
                        .put("missed", i.missed().toString())
                        .put("nextFire", i.nextFire().map(Object::toString).orElse(null))
                        .put("waitingFor", i.waitingFor().orElse(null));
            }
            s.printJson(Session.object().put("queue", name).set("schedules", a));
            return ExitCode.OK;
        }
        if (list.isEmpty()) {
            s.out().printf("no schedule in queue '%s'%n", Text.safe(name));
            return ExitCode.OK;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("ID", "SPEC", "MISSED", "NEXT FIRE"));
        for (ScheduleInfo i : list) {
            rows.add(List.of(
                    Text.safe(i.id()),
                    Text.safe(i.spec()),
                    i.missed().toString(),
                    i.waitingFor()
                            .map(job -> "after " + Text.safe(job) + " + delay")
                            .orElseGet(() -> i.nextFire().map(Object::toString).orElse("-"))));
        }
        s.out().print(Text.table(rows));
        return ExitCode.OK;
    }
}
