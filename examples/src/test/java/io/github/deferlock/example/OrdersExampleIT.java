package io.github.deferlock.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/** The example as the README runs it: own redis-server, load with a hot order, metrics over HTTP. */
final class OrdersExampleIT {

    private static String get(HttpClient http, int port, String path) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        return r.body();
    }

    @Test
    void runs_defersTheHotOrder_sendsEmails_andShowsMetrics() throws Exception {
        try (ConfigurableApplicationContext context =
                OrdersExample.start("--server.port=0", "--example.events-per-second=40")) {
            int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            HttpClient http = HttpClient.newHttpClient();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> get(http, port, "/actuator/metrics/deferlock.conflict.deferrals")
                            .matches("(?s).*\"value\":[1-9].*"));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> context.getBean(EmailSender.class).sent() > 0);
            assertThat(get(http, port, "/actuator/metrics"))
                    .contains("deferlock.lock.acquired", "deferlock.lock.held", "deferlock.queue.due");
            assertThat(get(http, port, "/actuator/health/deferlock")).contains("\"status\":\"UP\"");
            assertThat(get(http, port, "/actuator/deferlock")).contains("orders-deferred", "emails");
        }
    }
}
