package io.github.deferlock.dashboard;

import io.github.deferlock.redis.internal.Require;
import java.net.InetSocketAddress;
import java.net.URI;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A {@link DashboardServlet} on embedded Jetty 12, at the root path: what {@link StandaloneDashboard} runs.
 * Needs Jetty on the classpath (the standalone jar bundles it; {@code deferlock-dashboard} declares it
 * optional). Sessions (for the CSRF token) live in memory, with an HttpOnly, SameSite=Strict cookie.
 * Threadsafe.
 */
public final class DashboardServer implements AutoCloseable {

    private final Server server;
    private final ServerConnector connector;

    private DashboardServer(Server server, ServerConnector connector) {
        this.server = server;
        this.connector = connector;
    }

    /**
     * Starts {@code servlet} listening on {@code address} (port 0: a free port, see {@link #port()}).
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalStateException when Jetty cannot start (e.g. the port is taken), with the cause
     */
    public static DashboardServer start(DashboardServlet servlet, InetSocketAddress address) {
        Require.notNull("servlet", servlet);
        Require.notNull("address", address);
        Server server = new Server();
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost(address.getHostString());
        connector.setPort(address.getPort());
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SESSIONS);
        context.setContextPath("/");
        context.getSessionHandler().setHttpOnly(true);
        context.getSessionHandler().setSameSite(HttpCookie.SameSite.STRICT);
        context.getSessionHandler().setMaxInactiveInterval(8 * 3600);
        ServletHolder holder = new ServletHolder("deferlock-dashboard", servlet);
        holder.setInitOrder(0);
        context.addServlet(holder, "/*");
        server.setHandler(context);
        server.setStopAtShutdown(true);
        try {
            server.start();
        } catch (Exception e) {
            try {
                server.stop();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new IllegalStateException("the dashboard could not listen on " + address + ": " + e, e);
        }
        return new DashboardServer(server, connector);
    }

    /** The port it listens on. */
    public int port() {
        return connector.getLocalPort();
    }

    /** The page's address, e.g. {@code http://127.0.0.1:8080/}. */
    public URI uri() {
        String host = connector.getHost() == null || connector.getHost().equals("0.0.0.0")
                ? "127.0.0.1"
                : connector.getHost();
        if (host.indexOf(':') >= 0) {
            host = "[" + host + "]";
        }
        return URI.create("http://" + host + ":" + port() + "/");
    }

    /** Blocks until the server stops. */
    public void join() throws InterruptedException {
        server.join();
    }

    /** Stops the server (and the servlet's sampling). */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the dashboard failed: " + e, e);
        }
    }
}
