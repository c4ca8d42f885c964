package io.github.deferlock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.HostAndPort;

/**
 * A TCP proxy on a free loopback port in front of a server, with levers for network faults: {@link #cut()}
 * all connections, {@link #blackhole()} traffic (connections stay open, bytes vanish), {@link
 * #blackholeReplies()} (requests reach the server, its replies vanish: "the reply was lost"), and {@link
 * #latency(Duration)}, {@link #slowReplies(Duration)}. {@link #heal()} restores normal forwarding.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.to(server);
 *      RedisClient redis = RedisClient.create(proxy.hostAndPort())) {
 *     proxy.cut();      // every open connection is reset
 *     proxy.heal();
 * }
 * }</pre>
 *
 * <p>Instances are threadsafe.
 */
public final class FaultProxy implements AutoCloseable {

    private enum Mode {
        PASS,
        BLACKHOLE,
        BLACKHOLE_REPLIES
    }

    private final HostAndPort target;
    private final ServerSocket listener;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicLong accepted = new AtomicLong();
    private volatile Mode mode = Mode.PASS;
    private volatile long latencyNanos;
    private volatile long replyDelayNanos;
    private volatile boolean refusing;
    private volatile boolean closed;

    private FaultProxy(HostAndPort target) {
        this.target = target;
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a loopback port for the proxy", e);
        }
        Thread acceptor = new Thread(this::acceptLoop, "fault-proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts a proxy in front of {@code server}; it follows the server across restarts (same port). */
    public static FaultProxy to(RedisServer server) {
        Objects.requireNonNull(server, "server cannot be null");
        return new FaultProxy(server.hostAndPort());
    }

    /** Starts a proxy in front of {@code host:port}. */
    public static FaultProxy to(HostAndPort target) {
        Objects.requireNonNull(target, "target cannot be null");
        return new FaultProxy(target);
    }

    /** The proxy's address: point clients here. */
    public HostAndPort hostAndPort() {
        return new HostAndPort("127.0.0.1", port());
    }

    /** The proxy's port. */
    public int port() {
        return listener.getLocalPort();
    }

    /** How many client connections the proxy has accepted so far. */
    public long acceptedConnections() {
        return accepted.get();
    }

    /** How many client connections are open now. */
    public int openConnections() {
        return links.size();
    }

    /** Resets every open connection; new connections are still accepted (use {@link #refuse()} to stop them). */
    public void cut() {
        for (Link l : List.copyOf(links)) {
            l.close();
        }
    }

    /** Closes every new connection at once, as a host that is down would; {@link #heal()} ends it. */
    public void refuse() {
        refusing = true;
        cut();
    }

    /** Bytes in both directions vanish; connections stay open, so clients hang until their timeouts. */
    public void blackhole() {
        mode = Mode.BLACKHOLE;
    }

    /** Requests reach the server but its replies vanish: the server acts, the client never hears back. */
    public void blackholeReplies() {
        mode = Mode.BLACKHOLE_REPLIES;
    }

    /** Delays every chunk forwarded in either direction by {@code delay} ({@code Duration.ZERO} for none). */
    public void latency(Duration delay) {
        Objects.requireNonNull(delay, "delay cannot be null");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("latency cannot be negative: " + delay);
        }
        latencyNanos = delay.toNanos();
    }

    /**
     * Delays every chunk of the server's replies by {@code delay} ({@code Duration.ZERO} for none); requests
     * pass at once. With a delay over the client's socket timeout the server runs each call, the client gives
     * up on it, and the reply arrives late on a connection the client has already closed. A reply whose delay
     * began before {@link #heal()} is still delivered after that delay.
     */
    public void slowReplies(Duration delay) {
        Objects.requireNonNull(delay, "delay cannot be null");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("reply delay cannot be negative: " + delay);
        }
        replyDelayNanos = delay.toNanos();
    }

    /** Back to plain forwarding: no blackhole, no refusal, no latency. Connections already cut stay cut. */
    public void heal() {
        mode = Mode.PASS;
        refusing = false;
        latencyNanos = 0;
        replyDelayNanos = 0;
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        cut();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            accepted.incrementAndGet();
            if (refusing) {
                closeQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(new InetSocketAddress(target.getHost(), target.getPort()), 2000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            Link link = new Link(client, upstream);
            links.add(link);
            link.start();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.setSoLinger(true, 0); // RST, as a cut network would
        } catch (IOException ignored) {
            // closing anyway
        }
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** One proxied connection: two pump threads. */
    private final class Link {
        private final Socket client;
        private final Socket upstream;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void start() {
            pump(client, upstream, false);
            pump(upstream, client, true);
        }

        private void pump(Socket from, Socket to, boolean replies) {
            Thread t = new Thread(
                    () -> {
                        byte[] buf = new byte[16 * 1024];
                        try (InputStream in = from.getInputStream();
                                OutputStream out = to.getOutputStream()) {
                            int n;
                            while ((n = in.read(buf)) >= 0) {
                                Mode m = mode;
                                if (m == Mode.BLACKHOLE || (replies && m == Mode.BLACKHOLE_REPLIES)) {
                                    continue;
                                }
                                long delay = latencyNanos + (replies ? replyDelayNanos : 0);
                                if (delay > 0) {
                                    Thread.sleep(delay / 1_000_000, (int) (delay % 1_000_000));
                                }
                                out.write(buf, 0, n);
                                out.flush();
                            }
                        } catch (IOException | InterruptedException e) {
                            // the link is gone
                        } finally {
                            close();
                        }
                    },
                    "fault-proxy-" + (replies ? "down-" : "up-") + from.getPort());
            t.setDaemon(true);
            t.start();
        }

        void close() {
            links.remove(this);
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }
}
