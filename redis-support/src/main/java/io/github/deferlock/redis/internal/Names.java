package io.github.deferlock.redis.internal;

import java.nio.charset.StandardCharsets;

/**
 * The one rule for every user-supplied name that ends up in a Redis key or a job id (docs/names.md): a
 * name is 1 to {@link Kind#maxBytes()} bytes of UTF-8 of valid Unicode, so it has exactly one UTF-8 form
 * (an unpaired surrogate has none: {@code String.getBytes} would turn it into {@code ?} and let two names
 * share a key). A queue name, which is the hash tag of its keys, also holds no brace. A value that breaks the
 * rule is refused with an {@link IllegalArgumentException} that names the kind, shows the value (escaped,
 * e.g. {@code \uD800}) and states the rule. Stateless and threadsafe.
 */
public final class Names {

    /** How much of a refused value a message shows, in UTF-16 units. */
    private static final int SHOWN = 64;

    /** The kinds of user-supplied names, each with its limit. */
    public enum Kind {
        /** A lock name (lock-core), escaped into its key. */
        LOCK_NAME("lock name", 4096, false),
        /** A queue name (delay-core), the hash tag of the queue's keys. */
        QUEUE_NAME("queue name", 200, true),
        /** A caller-chosen job id (delay-core). */
        JOB_ID("job id", 512, false),
        /** A conflict-aware handler's name (lock-retry-integration). */
        HANDLER_NAME("handler name", 100, false),
        /** A message id of a conflict-aware handler (lock-retry-integration). */
        MESSAGE_ID("message id", 400, false),
        /** A recurring schedule's id (delay-core); with a slot's time it makes the job ids it fires. */
        SCHEDULE_ID("schedule id", 200, false),
        /** A queue job's concurrency key (delay-core): a suffix of the keys that count its running and held jobs. */
        CONCURRENCY_KEY("concurrency key", 128, false);

        private final String label;
        private final int maxBytes;
        private final boolean noBraces;

        Kind(String label, int maxBytes, boolean noBraces) {
            this.label = label;
            this.maxBytes = maxBytes;
            this.noBraces = noBraces;
        }

        /** What the kind is called in messages, e.g. {@code "job id"}. */
        public String label() {
            return label;
        }

        /** The longest value, in UTF-8 bytes. */
        public int maxBytes() {
            return maxBytes;
        }

        /** The rule, as a sentence fragment for messages. */
        public String rule() {
            return "a " + label + " must be 1 to " + maxBytes + " bytes of UTF-8 of valid Unicode (no unpaired "
                    + "surrogate)" + (noBraces ? " without '{' or '}'" : "");
        }
    }

    private Names() {}

    /**
     * Checks {@code value} against the rule of {@code kind} and returns its UTF-8 bytes.
     *
     * @throws NullPointerException when {@code value} is null ("&lt;label&gt; cannot be null")
     * @throws IllegalArgumentException when it is empty, too long, not valid Unicode, or (queue names) holds a
     *     brace; the message shows the value escaped and states the rule
     */
    public static byte[] requireValid(Kind kind, String value) {
        if (value == null) {
            throw new NullPointerException(kind.label + " cannot be null");
        }
        if (value.isEmpty()) {
            throw refused(kind, value, "is empty");
        }
        long bytes = 0;
        int n = value.length();
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                bytes += 1;
                if (kind.noBraces && (c == '{' || c == '}')) {
                    throw refused(kind, value, "contains '" + c + "' at index " + i);
                }
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                throw refused(kind, value, "has an unpaired surrogate " + unicodeEscape(c) + " at index " + i);
            } else {
                bytes += 3;
            }
        }
        if (bytes > kind.maxBytes) {
            throw refused(kind, value, "is " + bytes + " bytes in UTF-8, longer than " + kind.maxBytes);
        }
        return value.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The unambiguous encoding of the pair ({@code first}, {@code second}): {@code <n>:<first>:<second>}
     * where {@code n} is the length of {@code first} in UTF-8 bytes. Two different pairs of valid names never
     * give the same string, whatever they contain (colons included). Both must already be valid names.
     */
    public static String pair(String first, String second) {
        return first.getBytes(StandardCharsets.UTF_8).length + ":" + first + ":" + second;
    }

    /**
     * {@code value} as a message shows it: in double quotes, at most 64 UTF-16 units (then {@code …} and the
     * length), with {@code \}, {@code "}, control characters and unpaired surrogates written as Java escapes
     * ({@code \\}, {@code \"}, {@code \u0000}, {@code \uD800}).
     */
    public static String show(String value) {
        StringBuilder b = new StringBuilder(Math.min(value.length(), SHOWN) + 16).append('"');
        int n = Math.min(value.length(), SHOWN);
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c == '\\' || c == '"') {
                b.append('\\').append(c);
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                if (i + 1 < n) {
                    b.append(c).append(value.charAt(i + 1));
                }
                i++;
            } else if (Character.isSurrogate(c) || Character.isISOControl(c)) {
                b.append(unicodeEscape(c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
        if (value.length() > SHOWN) {
            b.append("… (").append(value.length()).append(" chars)");
        }
        return b.toString();
    }

    private static IllegalArgumentException refused(Kind kind, String value, String problem) {
        return new IllegalArgumentException(kind.label + " " + show(value) + " " + problem + ": " + kind.rule());
    }

    private static String unicodeEscape(char c) {
        return String.format("\\u%04X", (int) c);
    }
}
