package io.github.deferlock.conflict;

/**
 * How {@link OnConflict#DEFER} waits for a taken lock ({@link Deferrals.Builder#mode}). Immutable.
 *
 * <p>{@link #ORDERED} (the default) parks the message behind its key: it runs after the release that frees the
 * key, in the key's arrival order, and a new message for a key with parked work parks behind it. {@link #TIMED}
 * stores it with a backoff delay and tries again when it comes due, deferring it again while the key is still
 * taken: messages of one key may then run in any order, a hot key costs a Redis write and a lock attempt per
 * re-deferral, and a message runs up to one backoff delay after the release. Prefer TIMED only when a key's
 * messages are independent of each other and you would rather let a failing or slow message be overtaken than
 * hold its key's later messages, or when many keys are held at once for long and the worker has fewer threads
 * than hot keys (an ORDERED drain keeps one worker thread waiting per hot key, up to {@link
 * Deferrals#drainWait()}). See docs/strategies.md.
 */
public enum DeferMode {
    /** Park behind the key; run after its release, in the key's order (the default). */
    ORDERED,
    /** Retry after a backoff delay; defer again while the key is taken; no order between a key's messages. */
    TIMED
}
