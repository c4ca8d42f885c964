package io.github.deferlock.demo;

import io.github.deferlock.conflict.DeferMode;
import io.github.deferlock.conflict.OnConflict;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The demo's command-line options, parsed and validated. Immutable. */
record Options(
        String redisUri,
        int events,
        int orders,
        int hotOrders,
        double hotShare,
        int workers,
        int handleMillis,
        int rate,
        List<OnConflict> strategies,
        String source,
        DeferMode deferMode,
        boolean help) {

    static final String USAGE = """
            usage: ./run-demo [options]

            Streams order events through worker threads that process each event under a per-order
            Redis lock, once per conflict strategy, and prints a table per strategy.

              --redis URI          use this Redis (redis://host:port) instead of starting a local
                                   redis-server (the one on PATH, or the bundled Redis 6.2 binary)
              --events N           events per strategy (default 3000)
              --orders N           distinct orders (default 200)
              --hot N              how many of the orders are hot (default 3)
              --hot-share F        share of events that hit a hot order, 0..1 (default 0.3)
              --workers N          consumer threads (default 4)
              --handle-ms N        milliseconds of work per event under the lock (default 2)
              --rate N             events produced per second (default 800)
              --strategies LIST    comma-separated THROW,SLEEP_RETRY,DEFER (default all three)
              --source NAME        where events come from: queue (an in-process queue, default),
                                   streams (a Redis stream read by a StreamConsumer group),
                                   kafka (a topic read by a TopicConsumer; starts a Kafka broker
                                   in-process) or rabbit (a queue read by a RabbitConsumer; starts
                                   an AMQP 0-9-1 broker, Apache Qpid Broker-J, in-process)
              --defer-mode MODE    ordered (default: a deferred event waits behind its order and
                                   runs right after the release, in the order's sequence) or timed
                                   (the retry loop: tried again after a backoff)
              -h, --help           print this help

            THROW puts a conflicting event back at the end of the source (a user retry);
            SLEEP_RETRY sleeps with backoff on the consumer thread; DEFER stores the event in a
            Redis delay queue and moves on at once. Every run checks that no event was lost or
            processed twice and that no order's counter lost an update.
            """;

    static Options parse(String[] args) {
        String redis = null;
        int events = 3000;
        int orders = 200;
        int hot = 3;
        double hotShare = 0.3;
        int workers = 4;
        int handleMs = 2;
        int rate = 800;
        List<OnConflict> strategies = List.of(OnConflict.THROW, OnConflict.SLEEP_RETRY, OnConflict.DEFER);
        String source = "queue";
        DeferMode deferMode = DeferMode.ORDERED;
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-h", "--help" -> help = true;
                case "--redis" -> redis = value(args, ++i, a);
                case "--events" -> events = intValue(args, ++i, a, 1, 10_000_000);
                case "--orders" -> orders = intValue(args, ++i, a, 1, 1_000_000);
                case "--hot" -> hot = intValue(args, ++i, a, 0, 1_000_000);
                case "--hot-share" -> hotShare = doubleValue(args, ++i, a);
                case "--workers" -> workers = intValue(args, ++i, a, 1, 1024);
                case "--handle-ms" -> handleMs = intValue(args, ++i, a, 0, 10_000);
                case "--rate" -> rate = intValue(args, ++i, a, 1, 1_000_000);
                case "--strategies" -> strategies = strategies(value(args, ++i, a));
                case "--source" -> source = source(value(args, ++i, a));
                case "--defer-mode" -> deferMode = deferMode(value(args, ++i, a));
                default -> throw new IllegalArgumentException("unknown option '" + a + "'");
            }
        }
        if (hot > orders) {
            throw new IllegalArgumentException("--hot " + hot + " is more than --orders " + orders);
        }
        if (hot == 0 && hotShare > 0) {
            hotShare = 0;
        }
        if (redis != null && !redis.startsWith("redis://") && !redis.startsWith("rediss://")) {
            throw new IllegalArgumentException("--redis must be a redis:// or rediss:// URI, not '" + redis + "'");
        }
        return new Options(
                redis, events, orders, hot, hotShare, workers, handleMs, rate, strategies, source, deferMode, help);
    }

    private static DeferMode deferMode(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "ordered" -> DeferMode.ORDERED;
            case "timed" -> DeferMode.TIMED;
            default -> throw new IllegalArgumentException("--defer-mode must be ordered or timed, not '" + v + "'");
        };
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int intValue(String[] args, int i, String option, int min, int max) {
        String v = value(args, i, option);
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a whole number, not '" + v + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(option + " must be between " + min + " and " + max + ", not " + n);
        }
        return n;
    }

    private static double doubleValue(String[] args, int i, String option) {
        String v = value(args, i, option);
        double d;
        try {
            d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a number between 0 and 1, not '" + v + "'");
        }
        if (!(d >= 0 && d <= 1)) {
            throw new IllegalArgumentException(option + " must be between 0 and 1, not " + v);
        }
        return d;
    }

    private static String source(String name) {
        if (!List.of("queue", "streams", "kafka", "rabbit").contains(name)) {
            throw new IllegalArgumentException("--source takes queue, streams, kafka or rabbit, not '" + name + "'");
        }
        return name;
    }

    private static List<OnConflict> strategies(String list) {
        List<OnConflict> out = new ArrayList<>();
        for (String s : list.split(",")) {
            try {
                out.add(OnConflict.valueOf(s.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "--strategies takes THROW, SLEEP_RETRY and DEFER, not '" + s.trim() + "'");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--strategies needs at least one strategy");
        }
        return List.copyOf(out);
    }
}
