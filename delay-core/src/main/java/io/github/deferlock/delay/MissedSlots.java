package io.github.deferlock.delay;

import io.github.deferlock.redis.internal.Require;
import java.time.Duration;

/**
 * What a schedule does with the slots it missed while no worker ran: a slot found more than {@link #GRACE}
 * after its time is missed; one found sooner is only late and fires. Immutable and threadsafe.
 *
 * <ul>
 *   <li>{@link #fireOnce()} (the default): the missed slots fire once together, as one job for the last missed
 *       slot found;
 *   <li>{@link #fireAll(int)}: each missed slot fires, the earliest {@code max} of them; the rest are skipped;
 *   <li>{@link #skip()}: none fires; the schedule goes on from the next slot.
 * </ul>
 */
public final class MissedSlots {
    /** How late a slot may be found and still fire as a plain (late) slot: 1 minute. */
    public static final Duration GRACE = Duration.ofMinutes(1);
    /** The most missed slots {@link #fireAll(int)} fires. */
    public static final int MAX_FIRE_ALL = 1000;

    /** The three policies. */
    public enum Mode {
        /** Missed slots fire once together. */
        FIRE_ONCE,
        /** Each missed slot fires, up to a maximum. */
        FIRE_ALL,
        /** Missed slots do not fire. */
        SKIP
    }

    private static final MissedSlots ONCE = new MissedSlots(Mode.FIRE_ONCE, 1);
    private static final MissedSlots SKIP = new MissedSlots(Mode.SKIP, 0);

    private final Mode mode;
    private final int max;

    private MissedSlots(Mode mode, int max) {
        this.mode = mode;
        this.max = max;
    }

    /** Missed slots fire once together (one job, for the last missed slot found). The default. */
    public static MissedSlots fireOnce() {
        return ONCE;
    }

    /**
     * Each missed slot fires, the earliest {@code max}; the later ones are skipped.
     *
     * @throws IllegalArgumentException when {@code max} is not 1 to {@link #MAX_FIRE_ALL}
     */
    public static MissedSlots fireAll(int max) {
        return new MissedSlots(Mode.FIRE_ALL, Require.within("max", max, 1, MAX_FIRE_ALL));
    }

    /** Missed slots do not fire. */
    public static MissedSlots skip() {
        return SKIP;
    }

    /** The policy. */
    public Mode mode() {
        return mode;
    }

    /** The most missed slots fired: 1 for {@link Mode#FIRE_ONCE}, 0 for {@link Mode#SKIP}. */
    public int max() {
        return max;
    }

    /** The stored text: {@code once}, {@code skip} or {@code all:<max>}. */
    String text() {
        return switch (mode) {
            case FIRE_ONCE -> "once";
            case SKIP -> "skip";
            case FIRE_ALL -> "all:" + max;
        };
    }

    /** Reads {@link #text()} back. */
    static MissedSlots parse(String text) {
        if (text.equals("once")) {
            return ONCE;
        }
        if (text.equals("skip")) {
            return SKIP;
        }
        if (text.startsWith("all:")) {
            try {
                return fireAll(Integer.parseInt(text.substring(4)));
            } catch (NumberFormatException e) {
                // below
            }
        }
        throw new IllegalArgumentException("missed-slots policy '" + text + "' is not once, skip or all:<max>");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MissedSlots m && m.mode == mode && m.max == max;
    }

    @Override
    public int hashCode() {
        return mode.hashCode() * 31 + max;
    }

    @Override
    public String toString() {
        return text();
    }
}
