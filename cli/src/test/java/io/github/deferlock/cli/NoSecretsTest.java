package io.github.deferlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No output of the tool holds the Redis password, whatever is wrong with the URL that carries it (issue 28):
 * every malformed URL, given as {@code --redis} and as {@code $DEFERLOCK_REDIS}, to every command that opens
 * Redis. The password is {@code pa55} + {@code Secret}; neither half may appear, raw or decoded.
 */
final class NoSecretsTest {

    /** One of each kind of wrong; each holds the password. Hosts are 127.0.0.1 port 1: nothing listens. */
    static Stream<String> malformedUrls() {
        return Stream.of(
                "redis://user:pa55-Secret@127.0.0.1:notaport",
                "redis://user:pa55-Secret@127.0.0.1:99999",
                "redis://user:pa55-Secret@127.0.0.1:6379:6380",
                "redis://user:pa55-Secret@127.0.0.1",
                "redis://user:pa55-Secret@127.0.0.1:",
                "http://user:pa55-Secret@127.0.0.1:1",
                "redis:/user:pa55-Secret@127.0.0.1:1",
                "user:pa55-Secret@127.0.0.1:1",
                "redis://user:pa55-Secret@:1",
                "redis://user:pa55-Secret@",
                "redis://user:pa55-Secret",
                "redis://:pa55-Secret@127.0.0.1:1/notadb",
                "redis://user:pa55-Secret@127.0.0.1:1/-1",
                "redis://user:pa55-Secret@127.0.0.1:1/0/extra",
                "redis://user:pa55-Secret@127.0.0.1:1/0?timeout=x",
                "redis://user:pa55-Secret@127.0.0.1:1#fragment",
                "redis://user:pa55-Secret@127 0.0.1:1",
                " redis://user:pa55-Secret@127.0.0.1:1",
                "redis://user:pa55-Secret@127.0.0.1:1\n",
                "redis://user:pa55\u202eSecret@127.0.0.1:notaport",
                "redis://user:pa55@Secret@127.0.0.1:notaport",
                "redis://user:pa55@Secret@127.0.0.1",
                "redis://user:pa55%40Secret@127.0.0.1:notaport",
                "redis://user:pa55%zzSecret@127.0.0.1:1",
                "redis://user:pa55%Secret@127.0.0.1:1",
                "redis://user:pa55 Secret@127.0.0.1:1",
                "redis://user:pa55/Secret@127.0.0.1:1",
                "redis://user:pa55#Secret@127.0.0.1:1",
                "redis://user:pa55?Secret@127.0.0.1:1",
                "redis://user:pa55-Secret@[::1:1",
                "redis://user:pa55-Secret@[::1]:x",
                "redis://user:pa55-Secret@[zz::1]:1",
                "rediss://user:pa55-Secret@127.0.0.1:x/0",
                "redis://user:pa55-Secret@@127.0.0.1:1",
                "redis://user:pa55-Secret@127.0.0.1:1/0/",
                "redis://user:pa55-Secret@127.0.0.1:1/99999999999");
    }

    private static final List<List<String>> COMMANDS = List.of(
            List.of("queues"),
            List.of("queue", "stats", "q"),
            List.of("dead", "list", "q"),
            List.of("job", "q", "id"),
            List.of("locks"),
            List.of("lock", "name"),
            List.of("conflicts"),
            List.of("conflicts", "--json"),
            List.of("queues", "--json"),
            List.of("queue", "pause", "q"),
            List.of("dead", "purge", "q", "id"),
            List.of("job", "cancel", "q", "id"),
            List.of("audit"));

    @ParameterizedTest
    @MethodSource("malformedUrls")
    void malformedUrl_inTheOptionOrTheEnvironment_neverPrintsThePassword(String url) {
        for (List<String> command : COMMANDS) {
            Stream.Builder<String> args = Stream.builder();
            args.add("--redis").add(url).add("--timeout").add("2000");
            command.forEach(args);
            assertNoSecret(url, run(args.build().toArray(String[]::new), k -> null));

            Stream.Builder<String> plain = Stream.builder();
            plain.add("--timeout").add("2000");
            command.forEach(plain);
            assertNoSecret(url, run(plain.build().toArray(String[]::new), k -> k.equals(Main.REDIS_ENV) ? url : null));
        }
    }

    private record Result(int code, String out, String err) {}

    private static Result run(String[] args, UnaryOperator<String> env) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out), new PrintWriter(err), env);
        return new Result(code, out.toString(), err.toString());
    }

    private static void assertNoSecret(String url, Result r) {
        String all = r.out() + r.err();
        assertThat(r.code()).as("exit code for %s: %s", url, all).isIn(ExitCode.USAGE, ExitCode.REDIS);
        assertThat(all).as("output for %s", url).doesNotContain("pa55").doesNotContain("Secret");
        assertThat(r.err()).as("stderr for %s", url).startsWith("deferlock: ");
    }
}
