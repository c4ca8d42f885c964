package io.github.deferlock.testing;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Runs redis-server (or Valkey) in a Docker container through Testcontainers. The host port equals the
 * container port, so a restart keeps it; the data dir is bind-mounted at {@code /data}. Callers serialise
 * access.
 */
final class ContainerBackend implements RedisServer.Backend {

    private final String image;
    private final Path dir;
    private GenericContainer<?> container;

    ContainerBackend(String image, Path dir) {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            throw new IllegalStateException(RedisServer.IMAGE_PROPERTY + "=" + image
                    + " asks for a container, but no Docker engine is available; unset it to use a local redis-server");
        }
        this.image = image;
        this.dir = dir;
    }

    @Override
    public void start(int port, String config) {
        try {
            Files.writeString(dir.resolve("redis.conf"), config, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write redis.conf", e);
        }
        if (container != null) {
            docker().startContainerCmd(container.getContainerId()).exec();
            return;
        }
        String server = image.contains("valkey") ? "valkey-server" : "redis-server";
        GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse(image));
        c.withFileSystemBind(dir.toString(), "/data", BindMode.READ_WRITE);
        c.withCommand(server, "/data/redis.conf");
        c.withCreateContainerCmdModifier(cmd -> {
            ExposedPort exposed = ExposedPort.tcp(port);
            cmd.withExposedPorts(List.of(exposed));
            Ports bindings = new Ports();
            bindings.bind(exposed, Ports.Binding.bindIpAndPort("127.0.0.1", port));
            cmd.getHostConfig().withPortBindings(bindings);
        });
        c.start();
        container = c;
    }

    private DockerClient docker() {
        return DockerClientFactory.instance().client();
    }

    @Override
    public String dataDirForConfig() {
        return "/data";
    }

    @Override
    public String bindAddress() {
        return "0.0.0.0";
    }

    @Override
    public boolean isAlive() {
        if (container == null) {
            return false;
        }
        Boolean running = docker().inspectContainerCmd(container.getContainerId())
                .exec()
                .getState()
                .getRunning();
        return Boolean.TRUE.equals(running);
    }

    @Override
    public long pid() {
        Long pid = docker().inspectContainerCmd(container.getContainerId())
                .exec()
                .getState()
                .getPidLong();
        return pid == null ? -1 : pid;
    }

    @Override
    public void kill() {
        if (isAlive()) {
            docker().killContainerCmd(container.getContainerId()).exec();
        }
    }

    @Override
    public void pause() {
        docker().pauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public void resume() {
        docker().unpauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public void stop() {
        if (container != null && isAlive()) {
            docker().stopContainerCmd(container.getContainerId()).withTimeout(5).exec();
        }
    }

    @Override
    public void destroy() {
        if (container != null) {
            container.stop();
            container = null;
        }
    }

    @Override
    public String logTail() {
        return RedisServer.tail(dir.resolve("redis.log"), 15);
    }
}
