package io.github.deferlock.inspect.internal;

import java.nio.charset.StandardCharsets;

/**
 * The parts of a stored job envelope's head the ops tools show (docs/queue-keys.md, "Envelope"): {@code
 * <seq: 12 hex><state: w|f|x><attempts>|<receipt>|<due ms>|}. The inspector's scripts return the head and
 * the payload separately (skipping a header block), so only the head is parsed here. Immutable.
 *
 * @param state {@code w}, {@code f} or {@code x}
 * @param attempts deliveries counted so far
 */
public record EnvelopeText(char state, int attempts) {
    private static final int SEQ = 12;

    /**
     * Parses an envelope's head.
     *
     * @throws IllegalArgumentException when {@code head} is not an envelope's head
     */
    public static EnvelopeText parse(byte[] head) {
        if (head.length <= SEQ + 1) {
            throw new IllegalArgumentException("not a job envelope: " + show(head));
        }
        char state = (char) head[SEQ];
        int attempts = 0;
        for (int i = SEQ + 1; i < head.length && head[i] != '|'; i++) {
            byte b = head[i];
            if (b < '0' || b > '9' || attempts > 100_000_000) {
                throw new IllegalArgumentException("not a job envelope: " + show(head));
            }
            attempts = attempts * 10 + (b - '0');
        }
        return new EnvelopeText(state, attempts);
    }

    private static String show(byte[] head) {
        String s = new String(head, 0, Math.min(head.length, 40), StandardCharsets.UTF_8);
        return '"' + s.replaceAll("\\p{Cntrl}", "?") + '"';
    }
}
