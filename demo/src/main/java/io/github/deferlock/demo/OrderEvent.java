package io.github.deferlock.demo;

/**
 * One order event of the demo's stream.
 *
 * @param eventId unique id (the dedup key)
 * @param orderId the order it belongs to (the lock key is per order)
 * @param producedNanos when it was produced, on this JVM's {@link System#nanoTime()} clock
 */
public record OrderEvent(String eventId, int orderId, long producedNanos) {}
