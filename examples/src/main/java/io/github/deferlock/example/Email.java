package io.github.deferlock.example;

/**
 * An email to send later.
 *
 * @param to the recipient
 * @param subject the subject
 */
public record Email(String to, String subject) {}
