package io.github.deferlock.delay;

/** A test payload. */
public record Msg(String text, int n) {}
