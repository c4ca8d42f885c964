package io.github.deferlock.dashboard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class StandaloneOptionsTest {

    private static StandaloneOptions parse(Map<String, String> env, String... args) {
        return StandaloneOptions.parse(args, env);
    }

    @Test
    void defaults_areLoopbackPort8080ReadOnly() {
        StandaloneOptions o = parse(Map.of(), "--redis", "redis://10.0.0.5:6380");

        assertThat(o.redis().port()).isEqualTo(6380);
        assertThat(o.host()).isEqualTo("127.0.0.1");
        assertThat(o.port()).isEqualTo(8080);
        assertThat(o.actions()).isNull();
        assertThat(o.refresh()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.help()).isFalse();
        assertThat(o.lockScanBudget()).isEqualTo(25);
        assertThat(parse(Map.of(), "--redis", "redis://h:1", "--lock-scan-budget", "100")
                        .lockScanBudget())
                .isEqualTo(100);
        assertThatThrownBy(() -> parse(Map.of(), "--redis", "redis://h:1", "--lock-scan-budget", "0"))
                .hasMessage("--lock-scan-budget must be within [1, 1000], not 0");
    }

    @Test
    void actions_takeTheirSecretsFromTheEnvironment() {
        StandaloneOptions token = parse(
                Map.of(StandaloneOptions.TOKEN_ENV, "0123456789abcdef"),
                "--redis",
                "redis://localhost:6379",
                "--actions",
                "token",
                "--port",
                "0",
                "--refresh",
                "0.5");
        StandaloneOptions basic = parse(
                Map.of(StandaloneOptions.USER_ENV, "ops", StandaloneOptions.PASSWORD_ENV, "s3cret-pass"),
                "--redis",
                "rediss://user:pw@redis.internal:6379",
                "--actions",
                "basic");

        assertThat(token.actions().scheme()).isEqualTo("token");
        assertThat(token.port()).isZero();
        assertThat(token.refresh()).isEqualTo(Duration.ofMillis(500));
        assertThat(basic.actions().authenticate("Basic b3BzOnMzY3JldC1wYXNz")).contains("ops");
        assertThat(basic.toString()).doesNotContain("pw").doesNotContain("s3cret");
    }

    @Test
    void redisPassword_fromAFileOrTheEnvironment_replacesTheUrls(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("pw"), "from-file\n");

        StandaloneOptions fromFile = parse(
                Map.of(StandaloneOptions.REDIS_PASSWORD_ENV, "from-env"),
                "--redis",
                "redis://ops@10.0.0.5:6380",
                "--redis-password-file",
                file.toString());
        StandaloneOptions fromEnv =
                parse(Map.of(StandaloneOptions.REDIS_PASSWORD_ENV, "from-env"), "--redis", "redis://10.0.0.5:6380/2");
        StandaloneOptions none = parse(Map.of(), "--redis", "redis://10.0.0.5:6380");

        assertThat(fromFile.redis().hasPassword()).isTrue();
        assertThat(fromEnv.redis().hasPassword()).isTrue();
        assertThat(none.redis().hasPassword()).isFalse();
        assertThat(fromFile + " " + fromEnv).doesNotContain("from-");
        assertThat(fromEnv.toString()).startsWith("redis redis://***@10.0.0.5:6380/2, ");
        assertThatThrownBy(() -> parse(
                        Map.of(),
                        "--redis",
                        "redis://h:1",
                        "--redis-password-file",
                        dir.resolve("none").toString()))
                .hasMessageStartingWith("--redis-password-file: cannot read ");
        assertThat(StandaloneOptions.USAGE).contains("--redis-password-file").contains("DEFERLOCK_REDIS_PASSWORD");
    }

    @Test
    void badUrl_namesTheFormHelpDocuments_withTheUserInfoMasked() {
        assertThatThrownBy(() -> parse(Map.of(), "--redis", "redis://u:secret@h"))
                .hasMessage("--redis: expected redis://[user:password@]host:port[/db] or rediss://…, not"
                        + " redis://***@h: no port");
        assertThat(StandaloneOptions.USAGE).contains("redis://[user:password@]host:port[/db]");
    }

    @Test
    void badOptions_sayWhatIsWrong() {
        assertThatThrownBy(() -> parse(Map.of())).hasMessageContaining("--redis is required");
        assertThatThrownBy(() -> parse(Map.of(), "--redis", "http://x:1")).hasMessageContaining("redis://");
        assertThatThrownBy(() -> parse(Map.of(), "--redis", "redis://x:1", "--port", "70000"))
                .hasMessage("--port must be within [0, 65535], not 70000");
        assertThatThrownBy(() -> parse(Map.of(), "--redis", "redis://x:1", "--actions", "token"))
                .hasMessageContaining(StandaloneOptions.TOKEN_ENV);
        assertThatThrownBy(() -> parse(Map.of(), "--redis", "redis://x:1", "--actions", "open"))
                .hasMessage("--actions must be token or basic, not open");
        assertThatThrownBy(() -> parse(Map.of(), "--redis")).hasMessage("--redis needs a value");
        assertThatThrownBy(() -> parse(Map.of(), "--colour", "red")).hasMessage("unknown option --colour");
    }

    @Test
    void help_winsOverEverythingElse() {
        assertThat(parse(Map.of(), "--help").help()).isTrue();
        assertThat(StandaloneOptions.USAGE)
                .contains("--redis")
                .contains("--port")
                .contains("--actions");
    }
}
