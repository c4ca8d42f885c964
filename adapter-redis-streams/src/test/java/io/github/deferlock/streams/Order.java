package io.github.deferlock.streams;

/** A test message: an id and the key (order) it locks. */
public record Order(String id, String key) {}
