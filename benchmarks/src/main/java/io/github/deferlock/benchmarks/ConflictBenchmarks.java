package io.github.deferlock.benchmarks;

/** The {@code conflict.defer.*} metrics (hot-key workload under each {@code OnConflict} strategy). */
final class ConflictBenchmarks {

    private final Redis redis;
    private final Settings settings;
    private final Results results;

    ConflictBenchmarks(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
    }

    void run() {
        // TODO(issue 6): needs lock-retry-integration to compile; filled in below once it does.
        throw new UnsupportedOperationException("conflict benchmarks not wired yet " + redis + settings + results);
    }
}
