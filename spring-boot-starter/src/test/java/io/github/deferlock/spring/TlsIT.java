package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.testing.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import redis.clients.jedis.UnifiedJedis;

/** TLS from {@code spring.data.redis.ssl.bundle}: a PEM trust bundle for a test CA, against a TLS redis-server. */
final class TlsIT {

    @Test
    void sslBundle_connectsOverTls_andAnUntrustedServerIsRefused() throws Exception {
        Path dir = Files.createTempDirectory("deferlock-starter-tls-");
        assumeThat(openssl(dir, "version"))
                .as("the openssl CLI makes the certificates")
                .isTrue();
        openssl(
                dir,
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-days",
                "2",
                "-subj",
                "/CN=deferlock-starter-ca");
        Files.writeString(dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        openssl(
                dir,
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=server");
        openssl(
                dir,
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "server.crt",
                "-days",
                "2",
                "-extfile",
                "server.ext");
        RedisServer server;
        try {
            server = RedisServer.builder()
                    .tls(dir.resolve("server.crt"), dir.resolve("server.key"), dir.resolve("ca.crt"))
                    .start();
        } catch (IllegalStateException e) {
            assumeThat(e.getMessage())
                    .as("this redis-server is built without TLS")
                    .doesNotContainIgnoringCase("tls");
            throw e;
        }
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DeferlockAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + server.tlsPort(),
                        "spring.data.redis.ssl.bundle=redis");
        try (server) {
            runner.withPropertyValues(
                            "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + dir.resolve("ca.crt"))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context.getBean(UnifiedJedis.class).ping()).isEqualTo("PONG");
                        boolean[] ran = new boolean[1];
                        context.getBean(LockRunner.class).withLock("tls", OnConflict.THROW, () -> ran[0] = true);
                        assertThat(ran[0]).isTrue();
                    });
            // a bundle that trusts another CA (the server's own certificate) refuses the server's chain
            openssl(
                    dir,
                    "req",
                    "-x509",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-keyout",
                    "other.key",
                    "-out",
                    "other.crt",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=other-ca");
            runner.withPropertyValues(
                            "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + dir.resolve("other.crt"))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                                        context.getBean(UnifiedJedis.class).ping())
                                .hasStackTraceContaining("PKIX");
                    });
        }
    }

    private static boolean openssl(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add("openssl");
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            return false;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("openssl " + String.join(" ", args) + " failed: " + out);
        }
        return true;
    }
}
