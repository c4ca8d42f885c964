package io.github.deferlock.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import redis.clients.jedis.UnifiedJedis;

/**
 * A dashboard on embedded Jetty on a free loopback port, with an HTTP client that keeps cookies (the session of
 * the CSRF token) and the audit records it produced.
 */
final class RunningDashboard implements AutoCloseable {

    static final String TOKEN = "test-token-0123456789abcdef";

    final DashboardServer server;
    final List<ActionRecord> audit = new CopyOnWriteArrayList<>();
    final HttpClient http = HttpClient.newBuilder()
            .cookieHandler(new CookieManager())
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    private final ObjectMapper json = new ObjectMapper();

    /** A dashboard over {@code redis}; {@code settings} may enable actions. */
    RunningDashboard(UnifiedJedis redis, UnaryOperator<DashboardServlet.Builder> settings) {
        DashboardServlet servlet = settings.apply(DashboardServlet.builder(redis)
                        .refreshInterval(Duration.ofMillis(500))
                        .auditLog(audit::add))
                .build();
        server = DashboardServer.start(servlet, new InetSocketAddress("127.0.0.1", 0));
    }

    /** A dashboard whose actions need {@link #TOKEN}. */
    static RunningDashboard withActions(UnifiedJedis redis) {
        return new RunningDashboard(redis, b -> b.actions(ActionAuth.token(TOKEN)));
    }

    URI uri(String path) {
        return server.uri().resolve(path);
    }

    /** GET {@code path}; the response with its body. */
    HttpResponse<String> get(String path, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(20));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request.GET().build());
    }

    /** GET {@code path} as JSON, expecting 200. */
    JsonNode getJson(String path) {
        HttpResponse<String> response = get(path);
        if (response.statusCode() != 200) {
            throw new AssertionError("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return parse(response.body());
    }

    /** POST {@code body} to {@code path} with the given headers (name, value, ...). */
    HttpResponse<String> post(String path, String body, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(20));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request.POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /** The CSRF token of this client's session (creating the session). */
    String csrf() {
        return getJson("api/session").get("csrf").asText();
    }

    /** POST an action the way the page does: token, CSRF token, JSON. */
    HttpResponse<String> act(String action, String body) {
        return post(
                "api/actions/" + action,
                body,
                "Authorization",
                "Bearer " + TOKEN,
                "X-CSRF-Token",
                csrf(),
                "Content-Type",
                "application/json");
    }

    JsonNode parse(String body) {
        try {
            return json.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + body, e);
        }
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
