package io.github.deferlock.consumer.contract;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the contract's log of handlings says: how many messages were handled at least once, which handlings
 * repeated one already handled (duplicates), and how many first handlings came after a later message of the same
 * key had been handled (order inversions). A duplicate is never an inversion.
 *
 * @param firstHandlings distinct message ids handled
 * @param repeats the handlings of an id handled before, with the log index of its first handling
 * @param inversions first handlings whose seq is below the highest seq of their key handled before
 * @param firstInversions up to 10 inversions, {@code "<key>: <seq> after <highest>"}
 */
public record HandlingLog(int firstHandlings, List<Repeat> repeats, int inversions, List<String> firstInversions) {

    /**
     * A repeated handling.
     *
     * @param id the message id
     * @param first the log index of its first handling
     * @param again the log index of this one
     */
    public record Repeat(String id, int first, int again) {}

    /** Reads entries {@code "<key> <seq> <id>"} in the order they were logged. */
    public static HandlingLog of(List<String> entries) {
        Map<String, Integer> seen = new HashMap<>();
        Map<String, Integer> highest = new HashMap<>();
        List<Repeat> repeats = new ArrayList<>();
        int inversions = 0;
        List<String> examples = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            String[] f = entries.get(i).split(" ");
            String key = f[0];
            int seq = Integer.parseInt(f[1]);
            Integer first = seen.putIfAbsent(f[2], i);
            if (first != null) {
                repeats.add(new Repeat(f[2], first, i));
                continue;
            }
            Integer top = highest.get(key);
            if (top != null && seq < top) {
                inversions++;
                if (examples.size() < 10) {
                    examples.add(key + ": " + seq + " after " + top);
                }
            } else {
                highest.put(key, seq);
            }
        }
        return new HandlingLog(seen.size(), List.copyOf(repeats), inversions, List.copyOf(examples));
    }

    /** How many handlings repeated an earlier one. */
    public int duplicates() {
        return repeats.size();
    }
}
