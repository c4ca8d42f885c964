package io.github.deferlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** One {@code redis-server <conf> --sentinel} process with its own dir. Callers serialise access. */
final class SentinelProcess {
    private final RedisBinary binary;
    private final int port;
    private final Path dir;
    private Process process;

    SentinelProcess(RedisBinary binary, int port) {
        this.binary = binary;
        this.port = port;
        try {
            this.dir = Files.createTempDirectory("deferlock-sentinel-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a dir for redis-sentinel", e);
        }
    }

    int port() {
        return port;
    }

    HostAndPort hostAndPort() {
        return new HostAndPort("127.0.0.1", port);
    }

    void start(String config) {
        Path conf = dir.resolve("sentinel.conf");
        try {
            Files.writeString(
                    conf,
                    "port " + port + "\nbind 127.0.0.1\nprotected-mode no\ndaemonize no\ndir " + dir
                            + "\nlogfile sentinel.log\n" + config,
                    StandardCharsets.UTF_8);
            process = new ProcessBuilder(List.of(binary.path().toString(), conf.toString(), "--sentinel"))
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary.path() + " --sentinel", e);
        }
        RedisCluster.await(Duration.ofSeconds(10), "sentinel on port " + port + " to answer PING", () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-sentinel exited on port " + port + ": " + logTail());
            }
            try (Jedis j = connect()) {
                return "PONG".equals(j.ping());
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    Jedis connect() {
        return new Jedis(
                hostAndPort(),
                redis.clients.jedis.DefaultJedisClientConfig.builder()
                        .autoNegotiateProtocol(false)
                        .connectionTimeoutMillis(500)
                        .socketTimeoutMillis(2000)
                        .build());
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    void stop() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    void close() {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temp dir
        }
    }

    String logTail() {
        return RedisServer.tail(dir.resolve("sentinel.log"), 15) + "\n"
                + RedisServer.tail(dir.resolve("stdout.log"), 5);
    }
}
