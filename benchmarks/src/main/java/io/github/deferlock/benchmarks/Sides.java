package io.github.deferlock.benchmarks;

import java.util.List;

/** The side names used in results.json and the report. */
final class Sides {

    static final String DEFERLOCK = "deferlock";
    /** Bare Jedis: {@code SET NX PX} + compare-and-delete (locks), {@code ZADD} (queue): the unfenced ceiling. */
    static final String RAW = "raw";
    /** Bare Jedis sending deferlock's own acquire/release scripts: the ceiling of deferlock's design. */
    static final String RAW_FENCED = "raw-fenced";

    static final String RLOCK = "redisson-rlock";
    static final String RLOCK_TUNED = "redisson-rlock-tuned";
    static final String FENCED = "redisson-fenced";
    static final String FENCED_TUNED = "redisson-fenced-tuned";
    static final String FAIR = "redisson-fair";
    static final String FAIR_TUNED = "redisson-fair-tuned";
    static final String REDISSON = "redisson";
    static final String REDISSON_TUNED = "redisson-tuned";
    static final String BULLMQ = "bullmq";
    static final String SEED = "seed";
    /** 1 ÷ the measured critical-section duration: what one key can do with perfect hand-offs. */
    static final String HOLD_CEILING = "hold-ceiling";
    /**
     * The FIFO queueing floor of a contended p99 wait: with N processes served in arrival order a waiter waits
     * for the N − 1 ahead of it, one cycle each, so (N − 1) ÷ deferlock's throughput in the same round.
     */
    static final String FIFO_FLOOR = "fifo-floor";
    /** A figure of {@code redis-benchmark} in the same run. */
    static final String REDIS_BENCHMARK = "redis-benchmark";

    /** Every lock side of the uncontended benchmarks. */
    static final List<String> LOCKS =
            List.of(DEFERLOCK, RAW, RAW_FENCED, RLOCK, RLOCK_TUNED, FENCED, FENCED_TUNED, FAIR, FAIR_TUNED, SEED);

    /** The lock sides of the contended benchmarks (a lock that waits; raw and raw-fenced only spin). */
    static final List<String> CONTENDED = List.of(DEFERLOCK, RLOCK, FENCED, FAIR, FAIR_TUNED, SEED);

    /** The lock sides of the open-loop acquire benchmark. */
    static final List<String> OPEN_LOCKS = List.of(DEFERLOCK, FENCED, FENCED_TUNED);

    /** The queue sides. */
    static final List<String> QUEUES = List.of(DEFERLOCK, RAW, REDISSON, REDISSON_TUNED, BULLMQ, SEED);

    /** The queue sides with consumers (raw is a bare ZADD: no consumer). */
    static final List<String> CONSUMING = List.of(DEFERLOCK, REDISSON, REDISSON_TUNED, BULLMQ, SEED);

    /** The queue sides of the open-loop enqueue benchmark. */
    static final List<String> OPEN_QUEUES = List.of(DEFERLOCK, REDISSON, REDISSON_TUNED);

    private Sides() {}
}
