package io.github.deferlock.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.testing.RedisExtension;
import jakarta.servlet.Servlet;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/**
 * The servlet registered under a path of an application, as a Spring Boot {@code ServletRegistrationBean} does
 * ({@code /ops/deferlock/*} in an application at {@code /app}): the page, its files, the API and the actions all
 * work under that path. The README's registration snippet runs here as written: {@link Bean} and {@link
 * ServletRegistrationBean} are stand-ins for Spring's (this module does not depend on Spring) that register the
 * servlet in Jetty under the same mappings.
 */
@ExtendWith(RedisExtension.class)
final class MountedServletIT {

    /** Stand-in for Spring's {@code @Bean}. */
    @Retention(RetentionPolicy.RUNTIME)
    @interface Bean {}

    /** Stand-in for Spring Boot's {@code ServletRegistrationBean}: a servlet and its URL mappings. */
    record ServletRegistrationBean<T extends Servlet>(T servlet, String... urlMappings) {}

    /** The README's configuration, with actions enabled for the test. */
    static final class ReadmeConfiguration {
        @Bean
        ServletRegistrationBean<DashboardServlet> deferlockDashboard(UnifiedJedis redis) {
            return new ServletRegistrationBean<>(DashboardServlet.builder(redis).build(), "/ops/deferlock/*");
        }
    }

    @Test
    void readmeRegistration_servesThePageUnderItsPath(UnifiedJedis redis) throws Exception {
        ServletRegistrationBean<DashboardServlet> registration = new ReadmeConfiguration().deferlockDashboard(redis);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler app = new ServletContextHandler(ServletContextHandler.SESSIONS);
        app.setContextPath("/");
        for (String mapping : registration.urlMappings()) {
            app.addServlet(new ServletHolder(registration.servlet()), mapping);
        }
        server.setHandler(app);
        server.start();
        try (Workload w = Workload.write(redis)) {
            URI root = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/ops/deferlock/");
            HttpClient http = HttpClient.newHttpClient();

            HttpResponse<String> page =
                    http.send(HttpRequest.newBuilder(root).build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> queues = http.send(
                    HttpRequest.newBuilder(root.resolve("api/queues")).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(page.body()).contains("<title>deferlock dashboard</title>");
            assertThat(queues.body()).contains("\"dead\":" + w.orders.size(JobState.DEAD));
        } finally {
            server.stop();
        }
    }

    @Test
    void underAnApplicationPath_pageApiAndActionsWork(UnifiedJedis redis) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler app = new ServletContextHandler(ServletContextHandler.SESSIONS);
        app.setContextPath("/app");
        DashboardServlet servlet = DashboardServlet.builder(redis)
                .actions(ActionAuth.token(RunningDashboard.TOKEN))
                .build();
        app.addServlet(new ServletHolder(servlet), "/ops/deferlock/*");
        server.setHandler(app);
        server.start();
        try (Workload w = Workload.write(redis)) {
            URI base = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/app/ops/deferlock");
            HttpClient http =
                    HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
            ObjectMapper json = new ObjectMapper();

            HttpResponse<String> bare =
                    http.send(HttpRequest.newBuilder(base).build(), HttpResponse.BodyHandlers.ofString());
            URI root = URI.create(base + "/");
            HttpResponse<String> page =
                    http.send(HttpRequest.newBuilder(root).build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> script = http.send(
                    HttpRequest.newBuilder(root.resolve("static/dashboard.js")).build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode queues = json.readTree(http.send(
                            HttpRequest.newBuilder(root.resolve("api/queues")).build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body());
            String csrf = json.readTree(http.send(
                                    HttpRequest.newBuilder(root.resolve("api/session"))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body())
                    .get("csrf")
                    .asText();
            HttpResponse<String> purge = http.send(
                    HttpRequest.newBuilder(root.resolve("api/actions/purge"))
                            .header("Authorization", "Bearer " + RunningDashboard.TOKEN)
                            .header("X-CSRF-Token", csrf)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"queue\":\"orders\",\"ids\":[\"dead-2\"]}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(bare.statusCode()).isEqualTo(302);
            assertThat(bare.headers().firstValue("Location"))
                    .hasValueSatisfying(l -> assertThat(l).endsWith("/app/ops/deferlock/"));
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("<title>deferlock dashboard</title>");
            assertThat(script.statusCode()).isEqualTo(200);
            assertThat(queues.get("queues"))
                    .extracting(q -> q.get("name").asText())
                    .containsExactly("emails", "orders");
            assertThat(purge.statusCode()).isEqualTo(200);
            assertThat(w.orders.get("dead-2")).isEmpty();
            assertThat(w.orders.size(JobState.DEAD)).isEqualTo(3);
        } finally {
            server.stop();
        }
    }
}
