package io.github.deferlock.delay;

/**
 * Why a job is in the dead letters ({@link DeadLetter#cause()}); {@link DeadLetter#reason()} holds the text
 * stored beside it. Match on this, not on the text.
 */
public enum DeadLetterCause {
    /**
     * Its last allowed delivery failed ({@link DelayQueue#nack} at {@link DelayQueue#maxAttempts()}); the
     * reason is the failure, e.g. a worker's {@code "java.lang.IllegalStateException: ..."}.
     */
    ATTEMPTS_EXHAUSTED,
    /**
     * Its last allowed delivery was not settled within the visibility timeout (its worker died or hung); the
     * reason says on which attempt.
     */
    VISIBILITY_TIMEOUT,
    /** Its stored payload (or headers) could not be decoded at claim time; the reason is the decoder's error. */
    UNDECODABLE_PAYLOAD,
    /** {@link DelayQueue#deadLetter(Job, String)} moved it; the reason is the caller's text. */
    DEAD_LETTERED,
    /** It died under a version of deferlock that did not store the cause. */
    UNKNOWN
}
