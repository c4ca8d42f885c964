package io.github.deferlock.benchmarks;

import java.util.HashMap;
import java.util.Map;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The redis-server under test and the clients every side gets. All Jedis-based sides (deferlock, raw, seed)
 * use the same client settings: Jedis defaults except a pool of 32 connections, so 8 threads plus pub/sub
 * never wait for a connection. Redisson gets its defaults.
 *
 * @param host the server's host
 * @param port the server's port
 */
record Redis(String host, int port) {

    static Redis parse(String uri) {
        java.net.URI u = java.net.URI.create(uri);
        return new Redis(u.getHost(), u.getPort() < 0 ? 6379 : u.getPort());
    }

    String uri() {
        return "redis://" + host + ":" + port;
    }

    RedisClient jedis() {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(32);
        pool.setMaxIdle(32);
        return RedisClient.builder()
                .hostAndPort(new HostAndPort(host, port))
                .poolConfig(pool)
                .build();
    }

    Jedis connection() {
        return new Jedis(new HostAndPort(host, port));
    }

    /** Redisson with its defaults (single server; 64-connection pool, 24 idle minimum, 32 netty threads). */
    RedissonClient redisson() {
        Config config = new Config();
        config.useSingleServer().setAddress(uri());
        return Redisson.create(config);
    }

    /**
     * Redisson tuned for this machine: netty threads sized to the cores, {@code StringCodec} (every payload
     * here is a string), a smaller idle pool.
     */
    RedissonClient redissonTuned() {
        Config config = new Config();
        int cores = Runtime.getRuntime().availableProcessors();
        config.setNettyThreads(Math.max(2, cores));
        config.setThreads(Math.max(2, cores));
        config.setCodec(org.redisson.client.codec.StringCodec.INSTANCE);
        config.useSingleServer().setAddress(uri()).setConnectionMinimumIdleSize(Math.max(2, cores));
        return Redisson.create(config);
    }

    /**
     * Server-side counters at one moment: commands executed (INFO commandstats, without INFO itself) and
     * redis-server CPU seconds (INFO cpu, user + sys).
     *
     * @param calls commands executed so far
     * @param cpuSeconds CPU used so far
     */
    record Snapshot(long calls, double cpuSeconds) {
        /** Commands per operation since {@code before}, minus the one INFO pair in between. */
        double commandsPer(Snapshot before, long ops) {
            return (calls - before.calls) / (double) Math.max(1, ops);
        }

        /** Server CPU µs per operation since {@code before}. */
        double cpuMicrosPer(Snapshot before, long ops) {
            return (cpuSeconds - before.cpuSeconds) * 1e6 / Math.max(1, ops);
        }
    }

    static Snapshot snapshot(Jedis j) {
        long calls = commandCalls(j);
        Map<String, String> cpu = parseInfo(j.info("cpu"));
        double s = Double.parseDouble(cpu.getOrDefault("used_cpu_user", "0"))
                + Double.parseDouble(cpu.getOrDefault("used_cpu_sys", "0"));
        return new Snapshot(calls, s);
    }

    /**
     * FLUSHALL (synchronous, so the memory figures start from an empty server), with a 60 s read timeout: a server
     * holding 10⁶ jobs or large payloads takes seconds to flush on a loaded machine.
     */
    void flushAll() {
        try (Jedis j = new Jedis(
                new HostAndPort(host, port),
                redis.clients.jedis.DefaultJedisClientConfig.builder()
                        .socketTimeoutMillis(60_000)
                        .build())) {
            j.flushAll();
        }
    }

    String info(String section, String field) {
        try (Jedis j = connection()) {
            return parseInfo(j.info(section)).getOrDefault(field, "unknown");
        }
    }

    long usedMemory() {
        try (Jedis j = connection()) {
            return Long.parseLong(parseInfo(j.info("memory")).get("used_memory"));
        }
    }

    /**
     * Total calls over all commands in INFO commandstats, minus the INFO calls. Call it twice on one
     * connection for a delta that counts none of its own commands.
     */
    static long commandCalls(Jedis j) {
        {
            long total = 0;
            long info = 0;
            for (Map.Entry<String, String> e : parseInfo(j.info("commandstats")).entrySet()) {
                String v = e.getValue();
                int i = v.indexOf("calls=");
                if (i < 0) {
                    continue;
                }
                long calls = Long.parseLong(v.substring(i + 6, v.indexOf(',', i)));
                total += calls;
                if (e.getKey().equals("cmdstat_info")) {
                    info = calls;
                }
            }
            return total - info;
        }
    }

    /**
     * Total usec over all commands in INFO commandstats, minus INFO's: the Redis time spent on commands so far.
     * Call it twice on one connection for the time of what ran in between.
     */
    static long commandMicros(Jedis j) {
        long total = 0;
        for (Map.Entry<String, String> e : parseInfo(j.info("commandstats")).entrySet()) {
            String v = e.getValue();
            int i = v.indexOf("usec=");
            if (i < 0 || e.getKey().equals("cmdstat_info")) {
                continue;
            }
            total += Long.parseLong(v.substring(i + 5, v.indexOf(',', i)));
        }
        return total;
    }

    /** Per-command calls from INFO commandstats (e.g. {@code evalsha → 1234}). */
    static Map<String, Long> commandStats(Jedis j) {
        Map<String, Long> out = new HashMap<>();
        {
            for (Map.Entry<String, String> e : parseInfo(j.info("commandstats")).entrySet()) {
                String v = e.getValue();
                int i = v.indexOf("calls=");
                if (i >= 0) {
                    out.put(e.getKey().replace("cmdstat_", ""), Long.parseLong(v.substring(i + 6, v.indexOf(',', i))));
                }
            }
        }
        return out;
    }

    /** The per-command difference of two {@link #commandStats} snapshots ÷ {@code per}, as text. */
    static String delta(Map<String, Long> before, Map<String, Long> after, double per) {
        StringBuilder sb = new StringBuilder();
        new java.util.TreeMap<>(after).forEach((cmd, n) -> {
            long d = n - before.getOrDefault(cmd, 0L) - (cmd.equals("info") ? 1 : 0);
            if (d > 0) {
                sb.append(sb.length() == 0 ? "" : ", ")
                        .append(cmd)
                        .append(' ')
                        .append(String.format(java.util.Locale.ROOT, "%.2f", d / per));
            }
        });
        return sb.toString();
    }

    void resetStats() {
        try (Jedis j = connection()) {
            j.configResetStat();
        }
    }

    static Map<String, String> parseInfo(String text) {
        Map<String, String> out = new HashMap<>();
        for (String line : text.split("\r?\n")) {
            int c = line.indexOf(':');
            if (c > 0 && !line.startsWith("#")) {
                out.put(line.substring(0, c), line.substring(c + 1).trim());
            }
        }
        return out;
    }
}
