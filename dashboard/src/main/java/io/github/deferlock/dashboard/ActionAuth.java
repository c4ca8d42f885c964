package io.github.deferlock.dashboard;

import io.github.deferlock.redis.internal.Require;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;

/**
 * Who may run the dashboard's actions (requeue, purge, cancel): a bearer token or one user with a password
 * (HTTP basic). The page sends the credentials the user types in an {@code Authorization} header with each
 * action; they are compared in constant time. Immutable and threadsafe.
 *
 * <p>Give credentials from a secret store or the environment, never from source code.
 */
public final class ActionAuth {

    /** The scheme the page uses: {@code "token"} (Bearer) or {@code "basic"}. */
    private final String scheme;

    private final String user;
    private final byte[] secretDigest;

    private ActionAuth(String scheme, String user, String secret) {
        this.scheme = scheme;
        this.user = user;
        this.secretDigest = sha256(secret);
    }

    /**
     * Actions need {@code Authorization: Bearer <token>}; the audit log names the actor {@code "token"}.
     *
     * @param token the shared token, at least 16 characters
     * @throws NullPointerException when {@code token} is null
     * @throws IllegalArgumentException when {@code token} is shorter than 16 characters
     */
    public static ActionAuth token(String token) {
        Require.notNull("token", token);
        Require.atLeast("token length", token.length(), 16);
        return new ActionAuth("token", "token", token);
    }

    /**
     * Actions need HTTP basic credentials of {@code user} and {@code password}; the audit log names the user.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code user} is empty or contains {@code ':'}, or {@code password}
     *     is shorter than 8 characters
     */
    public static ActionAuth basic(String user, String password) {
        Require.notEmpty("user", user);
        if (user.indexOf(':') >= 0) {
            throw new IllegalArgumentException("user cannot contain ':', not " + user);
        }
        Require.notNull("password", password);
        Require.atLeast("password length", password.length(), 8);
        return new ActionAuth("basic", user, password);
    }

    /** {@code "token"} or {@code "basic"}: which credentials the page asks for. */
    public String scheme() {
        return scheme;
    }

    /**
     * The actor named by an {@code Authorization} header value when it carries these credentials.
     *
     * @param authorization the header value, or null when the request had none
     * @return the actor ({@code "token"} or the basic user), or empty when the header is missing or wrong
     */
    public Optional<String> authenticate(String authorization) {
        if (authorization == null) {
            return Optional.empty();
        }
        int space = authorization.indexOf(' ');
        if (space < 0) {
            return Optional.empty();
        }
        String given = authorization.substring(0, space).toLowerCase(Locale.ROOT);
        String credentials = authorization.substring(space + 1).trim();
        if (scheme.equals("token") && given.equals("bearer")) {
            return matches(credentials) ? Optional.of(user) : Optional.empty();
        }
        if (scheme.equals("basic") && given.equals("basic")) {
            String decoded;
            try {
                decoded = new String(Base64.getDecoder().decode(credentials), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
            int colon = decoded.indexOf(':');
            if (colon < 0) {
                return Optional.empty();
            }
            boolean userOk = MessageDigest.isEqual(sha256(decoded.substring(0, colon)), sha256(user));
            boolean secretOk = matches(decoded.substring(colon + 1));
            return userOk && secretOk ? Optional.of(user) : Optional.empty();
        }
        return Optional.empty();
    }

    private boolean matches(String secret) {
        return MessageDigest.isEqual(sha256(secret), secretDigest);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The scheme and the actor, never the secret. */
    @Override
    public String toString() {
        return "ActionAuth[" + scheme + ", " + user + "]";
    }
}
