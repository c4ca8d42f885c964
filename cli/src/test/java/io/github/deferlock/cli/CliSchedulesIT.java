package io.github.deferlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.MissedSlots;
import io.github.deferlock.delay.ScheduleInfo;
import io.github.deferlock.delay.ScheduleSpec;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/** {@code deferlock schedules NAME} and {@link Inspector#schedules(String)} against a real redis-server. */
@ExtendWith(RedisExtension.class)
final class CliSchedulesIT {

    record Msg(String text) {}

    @Test
    void schedules_listsIdSpecPolicyAndNextFire_textAndJson(RedisServer server, RedisClient redis) throws Exception {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "reports", Msg.class).build();
        ScheduleInfo ping = q.schedules().upsert("ping", ScheduleSpec.fixedRate(Duration.ofMinutes(5)), new Msg("p"));
        ScheduleInfo daily = q.schedules()
                .upsert("daily", ScheduleSpec.fixedRate(Duration.ofDays(1)), new Msg("d"), MissedSlots.fireAll(3));
        assertThat(Inspector.builder(redis).build().schedules("reports")).containsExactly(daily, ping);

        String url = "redis://" + server.hostAndPort().getHost() + ":"
                + server.hostAndPort().getPort();
        String text = run(url, "schedules", "reports");
        assertThat(text.lines().map(l -> l.strip().replaceAll(" +", " ")).toList())
                .containsExactly(
                        "ID SPEC MISSED NEXT FIRE",
                        "daily rate:PT24H all:3 " + daily.nextFire().orElseThrow(),
                        "ping rate:PT5M once " + ping.nextFire().orElseThrow());
        JsonNode json = new ObjectMapper().readTree(run(url, "schedules", "reports", "--json"));
        assertThat(json.path("queue").asText()).isEqualTo("reports");
        JsonNode second = json.path("schedules").get(1);
        assertThat(second.path("id").asText()).isEqualTo("ping");
        assertThat(second.path("spec").asText()).isEqualTo("rate:PT5M");
        assertThat(second.path("missed").asText()).isEqualTo("once");
        assertThat(second.path("nextFire").asText())
                .isEqualTo(ping.nextFire().orElseThrow().toString());
        assertThat(run(url, "schedules", "nothing")).contains("no schedule in queue 'nothing'");
    }

    private static String run(String url, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> all = new java.util.ArrayList<>(List.of("--redis", url, "--timeout", "2000"));
        all.addAll(List.of(args));
        int code = Main.run(all.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err), k -> null);
        assertThat(code).as(err.toString()).isZero();
        return out.toString();
    }
}
