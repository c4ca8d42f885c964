package io.github.deferlock.consumer.contract;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the contract's log of handlings says: how many messages were handled at least once, how many handlings
 * repeated one already handled (duplicates), and how many first handlings came after a later message of the same
 * key had been handled (order inversions). A duplicate is never an inversion.
 *
 * @param firstHandlings distinct message ids handled
 * @param duplicates handlings of an id handled before
 * @param inversions first handlings whose seq is below the highest seq of their key handled before
 * @param firstInversions up to 10 inversions, {@code "<key>: <seq> after <highest>"}
 */
public record HandlingLog(int firstHandlings, int duplicates, int inversions, List<String> firstInversions) {

    /** Reads entries {@code "<key> <seq> <id>"} in the order they were logged. */
    public static HandlingLog of(List<String> entries) {
        Set<String> seen = new HashSet<>();
        Map<String, Integer> highest = new HashMap<>();
        int duplicates = 0;
        int inversions = 0;
        List<String> examples = new java.util.ArrayList<>();
        for (String e : entries) {
            String[] f = e.split(" ");
            String key = f[0];
            int seq = Integer.parseInt(f[1]);
            if (!seen.add(f[2])) {
                duplicates++;
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
        return new HandlingLog(seen.size(), duplicates, inversions, List.copyOf(examples));
    }
}
