package io.github.deferlock.dashboard;

import io.github.deferlock.dashboard.internal.ActionGuard;
import io.github.deferlock.dashboard.internal.Api;
import io.github.deferlock.dashboard.internal.HeldKeysPanel;
import io.github.deferlock.dashboard.internal.HttpError;
import io.github.deferlock.dashboard.internal.LockPanel;
import io.github.deferlock.dashboard.internal.QueueOverview;
import io.github.deferlock.dashboard.internal.RateSampler;
import io.github.deferlock.dashboard.internal.StaticFiles;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.redis.internal.Require;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * The deferlock dashboard as one servlet: the page, its files and a JSON API under wherever it is mounted.
 * Standalone, {@link DashboardServer} runs it on embedded Jetty; in a Spring Boot application, register it under
 * a path of your choice:
 *
 * <pre>{@code
 * @Bean
 * ServletRegistrationBean<DashboardServlet> deferlockDashboard(UnifiedJedis redis) {
 *     return new ServletRegistrationBean<>(DashboardServlet.builder(redis).build(), "/ops/deferlock/*");
 * }
 * }</pre>
 *
 * <p>The page shows every queue the registry knows (due, held for a concurrency key and the keys most held, in
 * flight, dead, oldest due age, and charts of enqueued and handled per second and lateness over the last {@link
 * Builder#history}), a queue's dead letters, a job
 * by id and the locks under a prefix, refreshing every {@link Builder#refreshInterval}. It is read-only unless
 * {@link Builder#actions} is given; then requeue, purge, cancel and requeue-all need those credentials and the
 * CSRF token of the caller's HTTP session, and every action, run or refused, goes to the {@link
 * Builder#auditLog}. Reads are not authenticated: protect the path as you protect other operational pages
 * (the standalone server listens on the loopback address unless told otherwise).
 *
 * <p>A background thread samples the queues' counts every refresh interval while the servlet is in service
 * ({@link #init()} to {@link #destroy()}), and then reads the concurrency keys with held jobs of the queues whose
 * counts hold some (at most {@value Builder#HELD_KEY_QUEUES_PER_REFRESH} queues and 10 keys each per interval). The
 * servlet never closes the Redis client. Threadsafe.
 */
@SuppressWarnings("serial") // a servlet container never serializes it
public final class DashboardServlet extends HttpServlet {

    private static final Logger log = LoggerFactory.getLogger(DashboardServlet.class);

    private static final String SECURITY_POLICY = "default-src 'self'; img-src 'self' data:; object-src 'none'; "
            + "base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

    private final QueueOverview overview;
    private final Duration refreshInterval;
    private final RateSampler sampler;
    private final LockPanel lockPanel;
    private final HeldKeysPanel heldKeys;
    private final Api api;
    private final StaticFiles files = new StaticFiles();
    private ScheduledExecutorService sampling;

    private DashboardServlet(Builder b) {
        Inspector inspector =
                b.inspector != null ? b.inspector : Inspector.builder(b.redis).build();
        this.overview = new QueueOverview(inspector);
        this.refreshInterval = Require.orDefault(b.refreshInterval, Duration.ofSeconds(2));
        Clock clock = Require.orDefault(b.clock, Clock.systemUTC());
        this.sampler =
                new RateSampler(Require.orDefault(b.history, Duration.ofMinutes(10)), refreshInterval, clock::millis);
        Consumer<ActionRecord> audit = Require.orDefault(b.auditLog, DashboardServlet::logAction);
        this.lockPanel = new LockPanel(
                inspector,
                b.lockScanBudget != null ? b.lockScanBudget : Builder.DEFAULT_LOCK_SCAN_BUDGET,
                Api.MAX_LOCKS,
                Builder.MAX_WATCHED_LOCK_PREFIXES,
                Math.max(60_000, 10 * refreshInterval.toMillis()),
                clock::millis);
        this.heldKeys = new HeldKeysPanel(inspector, Builder.HELD_KEY_QUEUES_PER_REFRESH, clock::millis);
        this.api = new Api(
                inspector,
                overview,
                lockPanel,
                heldKeys,
                sampler,
                new ActionGuard(b.actions),
                audit,
                clock,
                refreshInterval.toMillis());
    }

    /**
     * Starts a builder for a dashboard over {@code redis}.
     *
     * @param redis the client (standalone, Sentinel or Cluster); the dashboard does not close it
     * @throws NullPointerException when {@code redis} is null
     */
    public static Builder builder(UnifiedJedis redis) {
        return new Builder(Require.notNull("redis", redis));
    }

    /** Starts sampling the queues' counts for the charts. */
    @Override
    public synchronized void init() {
        if (sampling != null) {
            return;
        }
        sampling = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "deferlock-dashboard-sampler");
            t.setDaemon(true);
            return t;
        });
        sampling.scheduleWithFixedDelay(this::sample, 0, refreshInterval.toMillis(), TimeUnit.MILLISECONDS);
        sampling.scheduleWithFixedDelay(this::walkLocks, 0, refreshInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops sampling. */
    @Override
    public synchronized void destroy() {
        if (sampling != null) {
            sampling.shutdownNow();
            sampling = null;
        }
    }

    private void sample() {
        QueueOverview.Snapshot snapshot;
        try {
            snapshot = overview.read();
            sampler.record(QueueOverview.counts(snapshot));
        } catch (RuntimeException e) {
            log.warn("deferlock dashboard: sampling the queues failed: {}", e.toString());
            return;
        }
        try {
            heldKeys.tick(snapshot.queues());
        } catch (RuntimeException e) {
            log.warn("deferlock dashboard: reading the held concurrency keys failed: {}", e.toString());
        }
    }

    private void walkLocks() {
        try {
            lockPanel.tick();
        } catch (RuntimeException e) {
            log.warn("deferlock dashboard: walking the lock keys failed: {}", e.toString());
        }
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String pathInfo = request.getPathInfo();
        if (pathInfo == null) {
            // mounted at /ops/* and asked for /ops: the page's relative links need the trailing slash
            String query = request.getQueryString();
            response.sendRedirect(request.getRequestURI() + "/" + (query == null ? "" : "?" + query));
            return;
        }
        String path = pathInfo.substring(1);
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("Content-Security-Policy", SECURITY_POLICY);
        String method = request.getMethod();
        try {
            if (path.startsWith("api/")) {
                if (method.equals("GET")) {
                    api.get(path.substring(4), request, response);
                } else if (method.equals("POST")) {
                    api.post(path.substring(4), request, response);
                } else {
                    throw new HttpError(405, method + " is not allowed on " + path);
                }
                return;
            }
            StaticFiles.File file = files.get(path).orElseThrow(() -> new HttpError(404, "no such page: " + path));
            if (!method.equals("GET") && !method.equals("HEAD")) {
                throw new HttpError(405, method + " is not allowed on " + path);
            }
            response.setContentType(file.contentType());
            response.setHeader("Cache-Control", "no-cache");
            response.setContentLength(file.body().length);
            if (method.equals("GET")) {
                response.getOutputStream().write(file.body());
            }
        } catch (HttpError e) {
            api.error(response, e.status(), e.getMessage());
        } catch (IllegalArgumentException e) {
            api.error(response, 400, e.getMessage());
        } catch (RuntimeException e) {
            log.warn("deferlock dashboard: {} {} failed", method, path, e);
            api.error(response, 503, "Redis or the dashboard failed: " + e);
        }
    }

    private static void logAction(ActionRecord r) {
        Logger audit = LoggerFactory.getLogger("io.github.deferlock.dashboard.audit");
        audit.info("{}", r.logLine());
    }

    /**
     * Builds a {@link DashboardServlet}. Each setting may be given once. Not threadsafe.
     */
    public static final class Builder {
        /** Default {@link #lockScanBudget}: 25 {@code SCAN} calls per refresh interval. */
        public static final int DEFAULT_LOCK_SCAN_BUDGET = 25;
        /** The most lock prefixes the locks panel watches at once. */
        public static final int MAX_WATCHED_LOCK_PREFIXES = 8;
        /**
         * The most queues whose held concurrency keys are read per refresh interval (only queues whose stats
         * count held jobs are read; with more, they take turns).
         */
        public static final int HELD_KEY_QUEUES_PER_REFRESH = 8;

        private final UnifiedJedis redis;
        private ActionAuth actions;
        private Duration refreshInterval;
        private Duration history;
        private Consumer<ActionRecord> auditLog;
        private Inspector inspector;
        private Clock clock;
        private Integer lockScanBudget;

        private Builder(UnifiedJedis redis) {
            this.redis = redis;
        }

        /**
         * Enables the actions (requeue and purge selected dead letters, cancel a job, requeue all) for callers
         * with these credentials. Without it the dashboard is read-only.
         *
         * @throws NullPointerException when {@code auth} is null
         * @throws IllegalStateException when already set
         */
        public Builder actions(ActionAuth auth) {
            this.actions = Require.setOnce("actions", actions, auth);
            return this;
        }

        /**
         * How often the page refreshes and the queues are sampled for the charts; default 2 s.
         *
         * @throws IllegalArgumentException when not within [200 ms, 1 min]
         * @throws IllegalStateException when already set
         */
        public Builder refreshInterval(Duration interval) {
            Require.within("refreshInterval", interval, Duration.ofMillis(200), Duration.ofMinutes(1));
            this.refreshInterval = Require.setOnce("refreshInterval", refreshInterval, interval);
            return this;
        }

        /**
         * How far back the charts go; default 10 minutes.
         *
         * @throws IllegalArgumentException when not within [10 s, 24 h]
         * @throws IllegalStateException when already set
         */
        public Builder history(Duration history) {
            Require.within("history", history, Duration.ofSeconds(10), Duration.ofHours(24));
            this.history = Require.setOnce("history", this.history, history);
            return this;
        }

        /**
         * Where every action goes, run or refused, with who asked; default: an INFO line on the SLF4J logger
         * {@code io.github.deferlock.dashboard.audit}. Called on the request thread; an exception it throws
         * is logged and ignored.
         *
         * @throws NullPointerException when {@code log} is null
         * @throws IllegalStateException when already set
         */
        public Builder auditLog(Consumer<ActionRecord> log) {
            this.auditLog = Require.setOnce("auditLog", auditLog, log);
            return this;
        }

        /**
         * The inspector to read and act through, for its settings (lock prefixes besides {@code lock:}, how
         * long registry entries live, payload preview size); default {@code Inspector.builder(redis).build()}.
         * It must use the same Redis as this builder.
         *
         * @throws NullPointerException when {@code inspector} is null
         * @throws IllegalStateException when already set
         */
        public Builder inspector(Inspector inspector) {
            this.inspector = Require.setOnce("inspector", this.inspector, inspector);
            return this;
        }

        /**
         * How many {@code SCAN} calls the locks panel may make per refresh interval, in all (default {@value
         * #DEFAULT_LOCK_SCAN_BUDGET}, each with {@code COUNT 1000}). Requests for {@code api/locks} never touch
         * Redis: they read the last complete walk, which the background thread makes in slices of this budget,
         * so a large keyspace makes the list older, never the Redis work larger. With more watched prefixes than
         * the budget, each still gets one call per interval (at most {@value #MAX_WATCHED_LOCK_PREFIXES}).
         *
         * @throws IllegalArgumentException when not within [1, 1000]
         * @throws IllegalStateException when already set
         */
        public Builder lockScanBudget(int scanCallsPerRefresh) {
            Require.within("lockScanBudget", scanCallsPerRefresh, 1, 1000);
            this.lockScanBudget = Require.setOnce("lockScanBudget", lockScanBudget, scanCallsPerRefresh);
            return this;
        }

        /**
         * The clock of the audit records and chart samples; default the system UTC clock.
         *
         * @throws NullPointerException when {@code clock} is null
         * @throws IllegalStateException when already set
         */
        public Builder clock(Clock clock) {
            this.clock = Require.setOnce("clock", this.clock, clock);
            return this;
        }

        /** The servlet. */
        public DashboardServlet build() {
            return new DashboardServlet(this);
        }
    }
}
