package io.github.deferlock.benchmarks;

/**
 * A message of the endurance run's stream (public so Jackson can read it from the stream and store it in the
 * deferral queue).
 *
 * @param id unique message id
 * @param key the lock key: one of the hot names, or a cold one
 * @param createdMicros when it was added, epoch µs
 */
public record EnduranceMessage(String id, String key, long createdMicros) {}
