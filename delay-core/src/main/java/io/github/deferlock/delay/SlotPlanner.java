package io.github.deferlock.delay;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Which slots of a due schedule fire now, and its next slot after them: the rule of {@link MissedSlots}, as a
 * pure function of the spec, the stored next slot and the server's now. Bounded work per call: at most {@link
 * #MAX_WALK} missed slots are walked (past them the planner jumps to the first slot inside the grace) and at most
 * {@link #MAX_LATE} late slots fire per call (the rest fire at the next call, which follows at once). Threadsafe
 * (stateless).
 */
final class SlotPlanner {
    /** The most missed slots walked one by one per call. */
    static final int MAX_WALK = MissedSlots.MAX_FIRE_ALL;
    /** The most late (within the grace) slots fired per call. */
    static final int MAX_LATE = 100;

    private SlotPlanner() {}

    /**
     * @param slots the slots to fire, ascending (job ids are made of them)
     * @param nextMs the next slot after them, or -1 when the spec has none
     */
    record Plan(List<Long> slots, long nextMs) {}

    /**
     * The plan for a schedule whose stored next slot {@code nextMs} is due ({@code nextMs <= nowMs}).
     *
     * @param graceMs how late a slot may be and still fire as a late slot ({@link MissedSlots#GRACE})
     */
    static Plan plan(ScheduleSpec spec, MissedSlots missed, long nextMs, long nowMs, long graceMs) {
        List<Long> slots = new ArrayList<>();
        long graceStart = nowMs - graceMs;
        long cursor = nextMs;
        long lastMissed = -1;
        int walked = 0;
        int firedMissed = 0;
        while (cursor >= 0 && cursor < graceStart) {
            if (walked == MAX_WALK || (missed.mode() == MissedSlots.Mode.FIRE_ALL && firedMissed == missed.max())) {
                cursor = after(spec, graceStart - 1); // the first slot inside the grace
                break;
            }
            walked++;
            switch (missed.mode()) {
                case FIRE_ALL -> {
                    slots.add(cursor);
                    firedMissed++;
                }
                case FIRE_ONCE -> lastMissed = cursor;
                case SKIP -> {}
            }
            cursor = after(spec, cursor);
        }
        if (lastMissed >= 0) {
            slots.add(lastMissed);
        }
        int late = 0;
        while (cursor >= 0 && cursor <= nowMs && late < MAX_LATE) {
            slots.add(cursor);
            late++;
            cursor = after(spec, cursor);
        }
        return new Plan(slots, cursor);
    }

    /** The first slot after {@code ms}, or -1 when none (or one before 1970, which a schedule never has). */
    static long after(ScheduleSpec spec, long ms) {
        Instant next = spec.next(Instant.ofEpochMilli(ms));
        if (next == null) {
            return -1;
        }
        long n = next.toEpochMilli();
        if (n <= ms) {
            throw new IllegalStateException("schedule spec " + ScheduleSpec.stored(spec) + " gave " + next
                    + " as the slot after " + Instant.ofEpochMilli(ms) + ": a slot must be later");
        }
        return n;
    }
}
