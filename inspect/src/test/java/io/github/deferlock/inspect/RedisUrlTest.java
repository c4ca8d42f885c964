package io.github.deferlock.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RedisUrl} and {@link OpsText#maskUrl}: what parses, and what a bad URL's message shows (issue 28). */
final class RedisUrlTest {

    @Test
    void goodUrls_parse_andShowNoPassword() {
        RedisUrl plain = RedisUrl.parse("--redis", "redis://10.0.0.5:6380");
        RedisUrl full = RedisUrl.parse("--redis", "rediss://ops:p%40ss%20w0rd@redis.internal:6379/3");
        RedisUrl v6 = RedisUrl.parse("--redis", "redis://:pw@[::1]:6379/");

        assertThat(plain).hasToString("redis://10.0.0.5:6380");
        assertThat(plain.hasPassword()).isFalse();
        assertThat(full).hasToString("rediss://***@redis.internal:6379/3");
        assertThat(full.tls()).isTrue();
        assertThat(full.hasPassword()).isTrue();
        assertThat(v6.host()).isEqualTo("[::1]");
        assertThat(v6).hasToString("redis://***@[::1]:6379");
        assertThat(plain.withPassword("x")).hasToString("redis://***@10.0.0.5:6380");
        assertThat(RedisUrl.parse("--redis", "redis://ops@h:1").hasPassword()).isFalse();
    }

    @Test
    void badUrls_nameTheSourceTheFormAndTheFault_withTheUserInfoMasked() {
        assertThatThrownBy(() -> RedisUrl.parse("--redis", "redis://u:pa55@Secret@127.0.0.1:x"))
                .hasMessage("--redis: expected redis://[user:password@]host:port[/db] or rediss://…, not "
                        + "redis://***@127.0.0.1:x: no host, or a port that is not a number");
        assertThatThrownBy(() -> RedisUrl.parse("$DEFERLOCK_REDIS", "redis://u:pa55-Secret@127.0.0.1"))
                .hasMessageEndingWith("not redis://***@127.0.0.1: no port");
        assertThatThrownBy(() -> RedisUrl.parse("--redis", "http://u:pa55-Secret@h:1"))
                .hasMessageEndingWith("not http://***@h:1: the scheme must be redis or rediss");
        assertThatThrownBy(() -> RedisUrl.parse("--redis", "redis://u:pa55-Secret@h:1/x"))
                .hasMessageEndingWith("not redis://***@h:1/x: the database must be /0, /1, … (at most 9 digits)");
        assertThatThrownBy(() -> RedisUrl.parse("--redis", "redis://u:pa55 Secret@h:1\n"))
                .hasMessageContaining("not redis://***@h:1\\n: not a URL");
        assertThatThrownBy(() -> RedisUrl.parse("--redis", "redis://u:pa55-Secret"))
                .hasMessageContaining("not redis://u:***: ");
        assertThatThrownBy(() -> RedisUrl.parse("--redis", "redis://h:1?password=x"))
                .hasMessageEndingWith("no ?query or #fragment is read");
    }

    @Test
    void maskUrl_leavesUrlsWithoutUserInfoAlone_andEscapesControlCharacters() {
        assertThat(OpsText.maskUrl("redis://h:6379/0")).isEqualTo("redis://h:6379/0");
        assertThat(OpsText.maskUrl("redis://[::1]:6379")).isEqualTo("redis://[::1]:6379");
        assertThat(OpsText.maskUrl("u:p@h:1")).isEqualTo("***@h:1");
        assertThat(OpsText.maskUrl("redis://h\u001b[31m:1")).isEqualTo("redis://h\\u001B[31m:***");
        assertThat(OpsText.safe("a\r\nb\u202e\\")).isEqualTo("a\\r\\nb\\u202E\\\\");
    }

    @Test
    void passwordFile_isReadWithoutItsLineBreak_andItsFaultsNameTheFileNotItsText(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("pw"), "pa55 Secret\r\n", StandardCharsets.UTF_8);
        Path empty = Files.writeString(dir.resolve("empty"), "\n", StandardCharsets.UTF_8);

        assertThat(RedisUrl.readPasswordFile("--redis-password-file", file)).isEqualTo("pa55 Secret");
        assertThatThrownBy(() -> RedisUrl.readPasswordFile("--redis-password-file", empty))
                .hasMessage("--redis-password-file: " + empty + " is empty");
        assertThatThrownBy(() -> RedisUrl.readPasswordFile("--redis-password-file", dir.resolve("missing")))
                .hasMessage("--redis-password-file: cannot read " + dir.resolve("missing") + " (NoSuchFileException)");
    }
}
