package io.github.deferlock.dashboard.internal;

import io.github.deferlock.dashboard.ActionAuth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;

/**
 * Admits an action request or refuses it, in this order: actions enabled (else 403), credentials (else 401),
 * a JSON body (else 415: an HTML form cannot send one), a same-origin request when the browser says where it
 * comes from ({@code Origin}, {@code Sec-Fetch-Site}; else 403), and the CSRF token of the caller's session in
 * the {@code X-CSRF-Token} header (else 403). The token is the synchronizer-token pattern: a random value per
 * HTTP session that only a same-origin page can read (from {@code api/session}). Threadsafe.
 */
public final class ActionGuard {

    /** The request header that carries the CSRF token. */
    public static final String CSRF_HEADER = "X-CSRF-Token";

    private static final String SESSION_ATTRIBUTE = "io.github.deferlock.dashboard.csrf";

    private final ActionAuth auth;
    private final SecureRandom random = new SecureRandom();

    /** A guard for {@code auth}, or one that refuses every action when it is null (read-only). */
    public ActionGuard(ActionAuth auth) {
        this.auth = auth;
    }

    /** Whether actions are enabled. */
    public boolean actionsEnabled() {
        return auth != null;
    }

    /** {@code "token"} or {@code "basic"}, or empty when read-only. */
    public Optional<String> scheme() {
        return Optional.ofNullable(auth).map(ActionAuth::scheme);
    }

    /**
     * The actor named by the request's credentials, for showing who is signed in. Never fails: a header
     * meant for something else (a proxy's or the application's own basic auth) must not break the page.
     *
     * @return the actor, or empty when actions are disabled or the request has no or other credentials
     */
    public Optional<String> actor(HttpServletRequest request) {
        String header = request.getHeader("Authorization");
        return auth == null || header == null ? Optional.empty() : auth.authenticate(header);
    }

    /** The CSRF token of the request's session, creating both when needed. */
    public String csrfToken(HttpServletRequest request) {
        HttpSession session = request.getSession(true);
        synchronized (this) {
            Object token = session.getAttribute(SESSION_ATTRIBUTE);
            if (token instanceof String s) {
                return s;
            }
            byte[] bytes = new byte[32];
            random.nextBytes(bytes);
            String fresh = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            session.setAttribute(SESSION_ATTRIBUTE, fresh);
            return fresh;
        }
    }

    /**
     * Admits an action request.
     *
     * @return the actor
     * @throws HttpError when the request is refused, with the reason
     */
    public String admit(HttpServletRequest request) {
        if (auth == null) {
            throw new HttpError(403, "actions are disabled: this dashboard is read-only");
        }
        if (request.getHeader("Authorization") == null) {
            throw new HttpError(401, "actions need credentials (Authorization header)");
        }
        String actor = actor(request).orElseThrow(() -> new HttpError(401, "wrong credentials"));
        String type = request.getContentType();
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw new HttpError(415, "actions take a JSON body (Content-Type: application/json)");
        }
        checkSameOrigin(request);
        HttpSession session = request.getSession(false);
        Object expected = session == null ? null : session.getAttribute(SESSION_ATTRIBUTE);
        String given = request.getHeader(CSRF_HEADER);
        if (!(expected instanceof String token)
                || given == null
                || !MessageDigest.isEqual(
                        token.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8))) {
            throw new HttpError(403, "missing or wrong CSRF token (" + CSRF_HEADER + " header)");
        }
        return actor;
    }

    private static void checkSameOrigin(HttpServletRequest request) {
        String site = request.getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw new HttpError(403, "cross-site request refused (Sec-Fetch-Site: " + site + ")");
        }
        String origin = request.getHeader("Origin");
        String host = request.getHeader("Host");
        if (origin != null && host != null) {
            String authority;
            try {
                authority = URI.create(origin).getRawAuthority();
            } catch (IllegalArgumentException e) {
                authority = null;
            }
            if (authority == null || !authority.equalsIgnoreCase(host)) {
                throw new HttpError(403, "cross-origin request refused (Origin: " + origin + ")");
            }
        }
    }
}
