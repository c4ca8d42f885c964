package io.github.deferlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Runs redis-server as a child process of this JVM. Callers serialise access. */
final class ProcessBackend implements RedisServer.Backend {

    private final RedisBinary binary;
    private final Path dir;
    private Process process;

    ProcessBackend(RedisBinary binary, Path dir) {
        this.binary = binary;
        this.dir = dir;
    }

    @Override
    public void start(int port, String config) {
        Path conf = dir.resolve("redis.conf");
        try {
            Files.writeString(conf, config, StandardCharsets.UTF_8);
            process = new ProcessBuilder(RedisServer.command(binary.path(), conf))
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary.path(), e);
        }
    }

    @Override
    public String dataDirForConfig() {
        return dir.toString();
    }

    @Override
    public String bindAddress() {
        return "127.0.0.1";
    }

    @Override
    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    @Override
    public long pid() {
        if (process == null) {
            throw new IllegalStateException("redis-server is not started");
        }
        return process.pid();
    }

    @Override
    public void destroy() {
        stop();
    }

    @Override
    public void kill() {
        if (isAlive()) {
            process.destroyForcibly();
            waitExit(10);
        }
    }

    @Override
    public void pause() {
        Signals.send(pid(), "STOP");
    }

    @Override
    public void resume() {
        Signals.send(pid(), "CONT");
    }

    @Override
    public void stop() {
        if (process == null) {
            return;
        }
        if (process.isAlive()) {
            process.destroy();
            if (!waitExit(5)) {
                process.destroyForcibly();
                waitExit(10);
            }
        }
    }

    private boolean waitExit(int seconds) {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public String logTail() {
        return RedisServer.tail(dir.resolve("redis.log"), 15) + "\n" + RedisServer.tail(dir.resolve("stdout.log"), 5);
    }
}
