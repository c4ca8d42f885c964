package io.github.deferlock.kafka;

/** A test message: an id and the key (order) it locks. */
public record Order(String id, String key) {}
