package io.github.deferlock.conflict;

/** A test message: an id and the order it belongs to. */
public record Msg(String id, String order) {}
