package io.github.deferlock.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

final class ActionAuthTest {

    private static String basic(String userAndPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userAndPassword.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void token_acceptsOnlyTheBearerToken() {
        ActionAuth auth = ActionAuth.token("0123456789abcdef-x");

        assertThat(auth.authenticate("Bearer 0123456789abcdef-x")).contains("token");
        assertThat(auth.authenticate("bearer 0123456789abcdef-x")).contains("token");
        assertThat(auth.authenticate("Bearer 0123456789abcdef-y")).isEmpty();
        assertThat(auth.authenticate("Bearer 0123456789abcdef")).isEmpty();
        assertThat(auth.authenticate(basic("token:0123456789abcdef-x"))).isEmpty();
        assertThat(auth.authenticate(null)).isEmpty();
        assertThat(auth.authenticate("0123456789abcdef-x")).isEmpty();
        assertThat(auth.scheme()).isEqualTo("token");
    }

    @Test
    void basic_acceptsOnlyTheUserAndPassword() {
        ActionAuth auth = ActionAuth.basic("alice", "pass:word with colon");

        assertThat(auth.authenticate(basic("alice:pass:word with colon"))).contains("alice");
        assertThat(auth.authenticate(basic("alice:pass:word"))).isEmpty();
        assertThat(auth.authenticate(basic("bob:pass:word with colon"))).isEmpty();
        assertThat(auth.authenticate("Basic not-base64!")).isEmpty();
        assertThat(auth.authenticate(basic("no colon"))).isEmpty();
        assertThat(auth.authenticate("Bearer pass:word with colon")).isEmpty();
        assertThat(auth.scheme()).isEqualTo("basic");
    }

    @Test
    void weakOrBadCredentials_areRefused() {
        assertThatThrownBy(() -> ActionAuth.token("short"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("token length must be at least 16, not 5");
        assertThatThrownBy(() -> ActionAuth.basic("a:b", "long enough"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("':'");
        assertThatThrownBy(() -> ActionAuth.basic("alice", "short"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("password length must be at least 8, not 5");
        assertThatThrownBy(() -> ActionAuth.token(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void toString_neverShowsTheSecret() {
        assertThat(ActionAuth.token("0123456789abcdef-secret").toString()).doesNotContain("secret");
        assertThat(ActionAuth.basic("alice", "hunter2hunter2").toString()).doesNotContain("hunter2");
    }
}
