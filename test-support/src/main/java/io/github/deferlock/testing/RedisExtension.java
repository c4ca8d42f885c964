package io.github.deferlock.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * JUnit 5 extension: one real {@link RedisServer} per test class, emptied ({@code FLUSHALL}, {@code SCRIPT
 * FLUSH}) before each test and restarted if a test killed it; test methods (and constructors) may declare
 * parameters of type {@link RedisServer}, {@link RedisClient} or {@link UnifiedJedis} — a fresh client per
 * test, closed after it.
 *
 * <pre>{@code
 * @ExtendWith(RedisExtension.class)
 * final class CounterIT {
 *     @Test
 *     void incr_countsUp(RedisClient redis) {
 *         assertThat(redis.incr("n")).isEqualTo(1);
 *     }
 * }
 * }</pre>
 */
public final class RedisExtension
        implements BeforeEachCallback, AfterEachCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RedisExtension.class);
    private static final String SERVER = "server";
    private static final String CLIENT = "client";

    /** Creates the extension; JUnit does this. */
    public RedisExtension() {}

    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext c = context;
        while (c.getParent().isPresent() && c.getParent().get().getTestClass().isPresent()) {
            c = c.getParent().get();
        }
        return c;
    }

    private static RedisServer server(ExtensionContext context) {
        ExtensionContext.Store store = classContext(context).getStore(NS);
        RedisServer server = store.get(SERVER, RedisServer.class);
        if (server == null) {
            server = RedisServer.start();
            store.put(SERVER, server);
        }
        return server;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        RedisServer server = server(context);
        if (server.isPaused()) {
            server.resume();
        }
        if (!server.isRunning()) {
            server.restart();
        }
        server.flushAll();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        UnifiedJedis client = context.getStore(NS).remove(CLIENT, UnifiedJedis.class);
        if (client != null) {
            client.close();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (context.getParent().isPresent()
                && context.getParent().get().getTestClass().isPresent()) {
            return; // a @Nested class: the outer class owns the server
        }
        RedisServer server = context.getStore(NS).remove(SERVER, RedisServer.class);
        if (server != null) {
            server.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == RedisServer.class || type == RedisClient.class || type == UnifiedJedis.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        RedisServer server = server(extensionContext);
        if (type == RedisServer.class) {
            return server;
        }
        ExtensionContext.Store store = extensionContext.getStore(NS);
        UnifiedJedis client = store.get(CLIENT, UnifiedJedis.class);
        if (client == null) {
            client = server.newClient();
            store.put(CLIENT, client);
        }
        return client;
    }
}
