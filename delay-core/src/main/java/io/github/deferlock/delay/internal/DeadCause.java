package io.github.deferlock.delay.internal;

/**
 * Why a job is dead, as stored in the receipt field of its dead envelope (one letter; empty in envelopes an
 * older version wrote). The API's {@code DeadLetterCause} has the same constants.
 */
public enum DeadCause {
    /** nack.lua: the last allowed delivery failed. */
    ATTEMPTS_EXHAUSTED("a"),
    /** claim.lua: the last allowed delivery was not settled within the visibility timeout. */
    VISIBILITY_TIMEOUT("t"),
    /** The payload could not be decoded at claim time. */
    UNDECODABLE_PAYLOAD("u"),
    /** {@code deadLetter(job, reason)}: the caller's decision. */
    DEAD_LETTERED("d"),
    /** Written by an older version, which stored no cause. */
    UNKNOWN("");

    private final String code;

    DeadCause(String code) {
        this.code = code;
    }

    /** The stored code. */
    public String code() {
        return code;
    }

    /** The cause stored as {@code code}; {@link #UNKNOWN} for anything else. */
    public static DeadCause ofCode(String code) {
        for (DeadCause c : values()) {
            if (c != UNKNOWN && c.code.equals(code)) {
                return c;
            }
        }
        return UNKNOWN;
    }
}
