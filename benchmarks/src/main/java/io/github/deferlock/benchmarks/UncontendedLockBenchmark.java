package io.github.deferlock.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@code lock.uncontended.*}: one acquire+release cycle of a key no other thread touches, per side (deferlock,
 * bare Jedis, Redisson), against one redis-server.
 *
 * <p>Run it through the harness, which starts the server and sets the parameters: {@code ./bench --only
 * lock.uncontended}. To run it alone with JMH's own runner: {@code java -cp 'benchmarks/target/lib/*:
 * benchmarks/target/deferlock-benchmarks.jar' org.openjdk.jmh.Main UncontendedLockBenchmark -p
 * redis=redis://127.0.0.1:PORT -t 8}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class UncontendedLockBenchmark {

    /** The side: deferlock, raw (bare Jedis) or redisson. */
    @Param({"deferlock", "raw", "redisson"})
    public String side;

    /** The server, as {@code redis://host:port}. */
    @Param({"redis://127.0.0.1:6380"})
    public String redis;

    private LockSide lockSide;

    /** Creates a JMH state; JMH calls it. */
    public UncontendedLockBenchmark() {}

    /** Opens the side's client. */
    @Setup(Level.Trial)
    public void open() {
        lockSide = LockSide.open(side, Redis.parse(redis));
    }

    /** Closes the side's client. */
    @TearDown(Level.Trial)
    public void close() {
        lockSide.close();
    }

    /** One thread's own key. */
    @State(Scope.Thread)
    public static class OwnKey {
        LockSide.Cycle cycle;

        /** Creates a JMH state; JMH calls it. */
        public OwnKey() {}

        /** Binds this thread to a fresh key of the benchmark's side. */
        @Setup(Level.Trial)
        public void bind(UncontendedLockBenchmark bench) {
            cycle = bench.lockSide.lock(LockSide.freshKey("u"));
        }
    }

    /** Acquire, release. */
    @Benchmark
    public void cycle(OwnKey key) throws InterruptedException {
        key.cycle.lock();
        key.cycle.unlock();
    }
}
