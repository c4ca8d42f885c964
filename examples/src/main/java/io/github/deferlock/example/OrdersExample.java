package io.github.deferlock.example;

import io.github.deferlock.testing.RedisServer;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The example application: order events applied under a per-order lock with {@code @WithLock(onConflict =
 * DEFER)}, one hot order that conflicts often, and a delayed "payment received" email on a delay queue.
 *
 * <p>Started without {@code spring.data.redis.*} it starts its own redis-server (the one on PATH, or the binary
 * in the embedded-redis jar) on a free port and stops it at shutdown.
 */
@SpringBootApplication
public class OrdersExample {

    /** Starts the example. */
    public static void main(String[] args) {
        start(args);
    }

    /** Starts the example and returns its context (for the example's test). */
    static ConfigurableApplicationContext start(String... args) {
        SpringApplication app = new SpringApplication(OrdersExample.class);
        boolean external = System.getenv("SPRING_DATA_REDIS_HOST") != null
                || java.util.Arrays.stream(args).anyMatch(a -> a.startsWith("--spring.data.redis."));
        if (!external) {
            RedisServer redis = RedisServer.start();
            app.setDefaultProperties(
                    java.util.Map.of("spring.data.redis.host", redis.host(), "spring.data.redis.port", redis.port()));
            // a bean, so it is stopped after the workers and the Redis client at shutdown
            app.addInitializers(context -> ((GenericApplicationContext) context)
                    .registerBean("embeddedRedis", RedisServer.class, () -> redis));
        }
        return app.run(args);
    }
}
