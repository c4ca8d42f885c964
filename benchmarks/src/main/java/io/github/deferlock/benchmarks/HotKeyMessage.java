package io.github.deferlock.benchmarks;

/**
 * A message of the hot-key workload (public so Jackson can store it in the deferral queue).
 *
 * @param id unique message id
 * @param key the lock key
 * @param hot whether it was drawn as one of the 10% hot messages (in the baseline its key is unique anyway)
 * @param tracked whether it arrived inside the measured window (its latency is recorded)
 * @param createdMicros when it arrived, epoch µs
 */
public record HotKeyMessage(String id, String key, boolean hot, boolean tracked, long createdMicros) {}
