package io.github.deferlock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/**
 * Physical-limit columns from {@code redis-benchmark} against the server under test, in the same run: plain
 * commands at {@code -c 1}, {@code -c 8} and pipelined {@code -P 16}, and {@code EVALSHA} of deferlock's own
 * scripts (loaded from lock-core's and delay-core's resources on the classpath).
 */
final class Limits {

    /**
     * One {@code redis-benchmark} invocation.
     *
     * @param id the metric id
     * @param description what it runs
     * @param test the {@code -t} test name, or null for a script
     * @param script the classpath resource of the script, or null
     * @param clients {@code -c}
     * @param pipeline {@code -P}
     */
    record Probe(String id, String description, String test, String script, int clients, int pipeline) {}

    static final String LOCK_SCRIPTS = "/io/github/deferlock/lock/internal/";
    static final String QUEUE_SCRIPTS = "/io/github/deferlock/delay/internal/";

    static final List<Probe> PROBES = probes();

    private Limits() {}

    private static List<Probe> probes() {
        List<Probe> p = new ArrayList<>();
        for (String t : List.of("ping", "set", "zadd")) {
            for (int[] cp : new int[][] {{1, 1}, {8, 1}, {1, 16}}) {
                String id = "limits." + t + ".c" + cp[0] + (cp[1] > 1 ? "p" + cp[1] : "");
                p.add(new Probe(
                        id,
                        "redis-benchmark -t " + t + " -c " + cp[0] + (cp[1] > 1 ? " -P " + cp[1] : ""),
                        t,
                        null,
                        cp[0],
                        cp[1]));
            }
        }
        for (String s : List.of("acquire", "release", "renew")) {
            p.add(new Probe(
                    "limits.evalsha." + s + ".c1",
                    "EVALSHA of lock-core's " + s + ".lua, -c 1" + scriptNote(s),
                    null,
                    LOCK_SCRIPTS + s + ".lua",
                    1,
                    1));
        }
        for (String s : List.of("enqueue", "claim")) {
            p.add(new Probe(
                    "limits.evalsha." + s + ".c1",
                    "EVALSHA of delay-core's " + s + ".lua, -c 1" + scriptNote(s),
                    null,
                    QUEUE_SCRIPTS + s + ".lua",
                    1,
                    1));
        }
        return List.copyOf(p);
    }

    private static String scriptNote(String s) {
        return switch (s) {
            case "acquire" -> " (a fresh random key each call: the SET NX + fencing-counter raise path)";
            case "release" -> " (random keys not held: the GET-only path)";
            case "renew" -> " (one random key not held: the GET-only path)";
            case "enqueue" -> " (one job, 1 h delay, random id)";
            case "claim" -> " (an empty queue: the TIME + range reads only)";
            default -> "";
        };
    }

    /** The text of a deferlock script resource with its {@code --@include} fragments resolved, as deferlock runs it. */
    static String script(String resource) {
        String dir = resource.substring(0, resource.lastIndexOf('/') + 1);
        String file = resource.substring(dir.length());
        return io.github.deferlock.redis.internal.LuaIncludes.resolve(
                file, r -> Limits.class.getResourceAsStream(dir + r));
    }

    /** Whether {@code redis-benchmark} runs. */
    static boolean available() {
        try {
            Process p = new ProcessBuilder("redis-benchmark", "--version")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs every probe once (a round) and records ops/s. */
    static void run(Redis redis, int requests, Results results) throws IOException, InterruptedException {
        if (!available()) {
            for (Probe p : PROBES) {
                results.unavailable(p.id(), Sides.REDIS_BENCHMARK, "redis-benchmark not on PATH");
            }
            return;
        }
        for (Probe p : PROBES) {
            double rps = run(redis, p, p.clients() > 1 || p.pipeline() > 1 ? requests * 4 : requests);
            results.add(p.id(), Sides.REDIS_BENCHMARK, rps);
            Progress.figure(p.id(), Sides.REDIS_BENCHMARK, rps, "ops/s");
        }
    }

    static double run(Redis redis, Probe p, int requests) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(
                "redis-benchmark",
                "-h",
                redis.host(),
                "-p",
                String.valueOf(redis.port()),
                "-c",
                String.valueOf(p.clients()),
                "-n",
                String.valueOf(requests),
                "-P",
                String.valueOf(p.pipeline()),
                "-r",
                "1000000",
                "--csv"));
        if (p.test() != null) {
            cmd.add("-t");
            cmd.add(p.test());
        } else {
            String sha;
            try (Jedis j = redis.connection()) {
                sha = j.scriptLoad(script(p.script()));
            }
            String name = p.script().substring(p.script().lastIndexOf('/') + 1).replace(".lua", "");
            cmd.add("EVALSHA");
            cmd.add(sha);
            cmd.addAll(
                    switch (name) {
                        case "acquire" ->
                            List.of(
                                    "4",
                                    "rb:l:__rand_int__",
                                    "rb:l:__rand_int__:fence",
                                    "rb:l:__rand_int__:waiters",
                                    "rb:l:__rand_int__:waiter-deadlines",
                                    "0123456789abcdef0123456789abcdef",
                                    "30000",
                                    "1",
                                    "",
                                    "new",
                                    "1000",
                                    "rb:l:__rand_int__:released:",
                                    "0");
                        case "release" ->
                            List.of(
                                    "4",
                                    "rb:l:__rand_int__",
                                    "rb:l:__rand_int__:last-release",
                                    "rb:l:__rand_int__:waiters",
                                    "rb:l:__rand_int__:waiter-deadlines",
                                    "0123456789abcdef0123456789abcdef",
                                    "rb:l:__rand_int__:released:",
                                    "0",
                                    "60000",
                                    "1000");
                        case "renew" -> List.of("1", "rb:l:__rand_int__", "30000", "0123456789abcdef0123456789abcdef");
                        case "enqueue" ->
                            List.of(
                                    "5",
                                    "rb:q:due",
                                    "rb:q:jobs",
                                    "rb:q:seq",
                                    "rb:q:replay",
                                    "rb:q:stats",
                                    "rb:q:wake",
                                    "0",
                                    "0",
                                    "__rand_int__",
                                    "d",
                                    "3600000",
                                    "\"" + "x".repeat(98) + "\"");
                        case "claim" ->
                            List.of(
                                    "12",
                                    "rb:e:due",
                                    "rb:e:fl",
                                    "rb:e:jobs",
                                    "rb:e:dead",
                                    "rb:e:err",
                                    "rb:e:seq",
                                    "rb:e:replay",
                                    "rb:e:stats",
                                    "rb:e:paused",
                                    "rb:e:rate-limit",
                                    "rb:e:rate",
                                    "rb:e:liveness",
                                    "10",
                                    "30000",
                                    "5",
                                    "10",
                                    "60000 c__rand_int__",
                                    "0");
                        default -> throw new IllegalArgumentException(name);
                    });
        }
        Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!proc.waitFor(120, TimeUnit.SECONDS) || proc.exitValue() != 0) {
            throw new IllegalStateException("redis-benchmark failed: " + out);
        }
        double rps = Double.NaN;
        for (String line : out.split("\r?\n")) {
            String[] f = line.split(",");
            if (f.length < 2 || !f[0].startsWith("\"") || f[0].equals("\"test\"")) {
                continue;
            }
            String name = f[0].replace("\"", "").toLowerCase(Locale.ROOT);
            if (name.equals("ping_inline")) {
                continue;
            }
            try {
                rps = Double.parseDouble(f[1].replace("\"", ""));
            } catch (NumberFormatException e) {
                // a header or an error line
            }
        }
        if (Double.isNaN(rps)) {
            throw new IllegalStateException("no figure in redis-benchmark output: " + out);
        }
        return rps;
    }
}
