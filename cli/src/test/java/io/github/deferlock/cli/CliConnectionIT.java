package io.github.deferlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** {@code --redis}: credentials in the URL, ACL refusals, and TLS with host-name verification (issue 17). */
@ExtendWith(RedisExtension.class)
final class CliConnectionIT {

    private record Result(int code, String out, String err) {}

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out), new PrintWriter(err), k -> null);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void userAndPasswordInTheUrl_authenticate_andRefusalsExitWithRedisCode(RedisServer server) {
        try (Jedis admin = server.newConnection()) {
            admin.aclSetUser(
                    "ops", "reset", "on", ">p@ss w0rd", "~deferlock:*", "~lock:*", "+@all", "-@admin", "-@dangerous");
            admin.aclSetUser("other", "reset", "on", ">x", "~other:*", "+@all");
            admin.hset("deferlock:registry", "queue:q", Long.toString(System.currentTimeMillis())); // q exists
        }
        String hostPort =
                server.hostAndPort().getHost() + ":" + server.hostAndPort().getPort();
        Result ok = run("--redis", "redis://ops:p%40ss%20w0rd@" + hostPort, "queue", "stats", "q", "--json");
        assertThat(ok.code()).as(ok.err()).isEqualTo(ExitCode.OK);
        assertThat(ok.out()).contains("\"queue\" : \"q\"");

        Result wrong = run("--redis", "redis://ops:nope@" + hostPort, "queue", "stats", "q");
        assertThat(wrong.code()).isEqualTo(ExitCode.REDIS);
        assertThat(wrong.err()).contains("WRONGPASS");

        Result denied = run("--redis", "redis://other:x@" + hostPort, "queue", "stats", "q");
        assertThat(denied.code()).isEqualTo(ExitCode.REDIS);
        assertThat(denied.err()).contains("NOPERM");

        StringWriter out = new StringWriter();
        int code = Main.run(
                new String[] {"queues", "--json"},
                new PrintWriter(out),
                new PrintWriter(new StringWriter()),
                k -> k.equals(Main.REDIS_ENV) ? "redis://ops:p%40ss%20w0rd@" + hostPort : null);
        assertThat(code).isZero();
        assertThat(out.toString()).contains("\"name\" : \"q\"");
    }

    @Test
    void passwordFromTheEnvironmentOrAFile_replacesTheUrls(RedisServer server, @TempDir Path dir) throws IOException {
        try (Jedis admin = server.newConnection()) {
            admin.aclSetUser("ops2", "reset", "on", ">s3cret pass", "~deferlock:*", "~lock:*", "+@all", "-@admin");
            admin.hset("deferlock:registry", "queue:q", Long.toString(System.currentTimeMillis())); // q exists
        }
        String url = "redis://ops2@" + server.hostAndPort().getHost() + ":" + server.port();
        String noPassword = "redis://ops2:wrong@" + server.hostAndPort().getHost() + ":" + server.port();
        Path file = Files.writeString(dir.resolve("pw"), "s3cret pass\n");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int fromEnv = Main.run(
                new String[] {"--redis", noPassword, "queue", "stats", "q", "--json"},
                new PrintWriter(out),
                new PrintWriter(err),
                k -> k.equals(Main.REDIS_PASSWORD_ENV) ? "s3cret pass" : null);
        Result fromFile = run("--redis", noPassword, "--redis-password-file", file.toString(), "queues");
        Result missing =
                run("--redis", url, "--redis-password-file", dir.resolve("none").toString(), "queues");

        assertThat(fromEnv).as(err.toString()).isEqualTo(ExitCode.OK);
        assertThat(fromFile.code()).as(fromFile.err()).isEqualTo(ExitCode.OK);
        assertThat(missing.code()).isEqualTo(ExitCode.USAGE);
        assertThat(missing.err()).contains("--redis-password-file: cannot read").doesNotContain("s3cret");
    }

    @Test
    void rediss_withTheJvmTrustStore_connects_andAWrongHostCertificateIsRefused() throws Exception {
        assumeThat(runs("openssl", "version"))
                .as("the openssl CLI makes the test certificates")
                .isTrue();
        Path dir = Files.createTempDirectory("deferlock-cli-tls");
        openssl(
                dir,
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=test-ca",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem");
        issue(dir, "good", "IP:127.0.0.1,DNS:localhost");
        issue(dir, "wrong", "DNS:wrong.example.com");
        Path trust = dir.resolve("trust.p12");
        assertThat(runs(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-importcert",
                        "-noprompt",
                        "-alias",
                        "ca",
                        "-file",
                        dir.resolve("ca.pem").toString(),
                        "-keystore",
                        trust.toString(),
                        "-storepass",
                        "changeit",
                        "-storetype",
                        "PKCS12"))
                .isTrue();
        List<String> jvm = List.of(
                "-Xmx128m",
                "-Djavax.net.ssl.trustStore=" + trust,
                "-Djavax.net.ssl.trustStorePassword=changeit",
                "-Djavax.net.ssl.trustStoreType=PKCS12");
        try (RedisServer good = tlsServer(dir, "good")) {
            try (Jedis admin = good.newConnection()) { // queue 'tls' exists
                admin.hset("deferlock:registry", "queue:tls", Long.toString(System.currentTimeMillis()));
            }
            try (JvmProcess p = JvmProcess.start(
                    Main.class, jvm, "--redis", "rediss://127.0.0.1:" + good.tlsPort(), "queue", "stats", "tls")) {
                assertThat(p.waitFor(Duration.ofSeconds(60)))
                        .as(String.join("\n", p.output()))
                        .isZero();
                assertThat(p.output()).anySatisfy(line -> assertThat(line).matches("queue +tls"));
            }
        }
        try (RedisServer wrong = tlsServer(dir, "wrong");
                JvmProcess p = JvmProcess.start(
                        Main.class, jvm, "--redis", "rediss://127.0.0.1:" + wrong.tlsPort(), "queue", "stats", "tls")) {
            assertThat(p.waitFor(Duration.ofSeconds(60))).isEqualTo(ExitCode.REDIS);
            assertThat(String.join("\n", p.output())).startsWith("deferlock: ");
        }
    }

    private static RedisServer tlsServer(Path dir, String name) {
        try {
            return RedisServer.builder()
                    .tls(dir.resolve(name + ".pem"), dir.resolve(name + ".key"), dir.resolve("ca.pem"))
                    .start();
        } catch (IllegalStateException e) {
            assumeThat(e.getMessage())
                    .as("this redis-server is built without TLS: " + e.getMessage())
                    .doesNotContainIgnoringCase("tls");
            throw e;
        }
    }

    private static void issue(Path dir, String name, String san) throws Exception {
        openssl(
                dir,
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=" + name,
                "-keyout",
                name + ".key",
                "-out",
                name + ".csr");
        Files.writeString(dir.resolve(name + ".ext"), "subjectAltName=" + san + "\n");
        openssl(
                dir,
                "x509",
                "-req",
                "-in",
                name + ".csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                name + ".ext",
                "-out",
                name + ".pem");
    }

    private static void openssl(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0)
                .as(output)
                .isTrue();
    }

    private static boolean runs(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
