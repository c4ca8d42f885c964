package io.github.deferlock.consumer.contract;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the contract's log of handlings says: how many messages were handled at least once, how many handlings
 * repeated one already handled (duplicates), and how many first handlings came after a later message of the same
 * key had been handled (order inversions). A duplicate is never an inversion.
 *
 * @param firstHandlings distinct message ids handled
 * @param duplicates handlings of an id handled before
 * @param laterDuplicates those of them repeating a handling logged at or after the cut ({@link #of(List, int)}):
 *     not cut by a kill that happened at the cut
 * @param inversions first handlings whose seq is below the highest seq of their key handled before
 * @param firstInversions up to 10 inversions, {@code "<key>: <seq> after <highest>"}
 */
public record HandlingLog(
        int firstHandlings, int duplicates, int laterDuplicates, int inversions, List<String> firstInversions) {

    /** Reads entries {@code "<key> <seq> <id>"} in the order they were logged. */
    public static HandlingLog of(List<String> entries) {
        return of(entries, entries.size());
    }

    /**
     * Like {@link #of(List)}; a duplicate of a handling logged at index {@code cut} or later counts in {@link
     * #laterDuplicates()}.
     */
    public static HandlingLog of(List<String> entries, int cut) {
        Map<String, Integer> seen = new HashMap<>();
        Map<String, Integer> highest = new HashMap<>();
        int duplicates = 0;
        int later = 0;
        int inversions = 0;
        int index = -1;
        List<String> examples = new java.util.ArrayList<>();
        for (String e : entries) {
            index++;
            String[] f = e.split(" ");
            String key = f[0];
            int seq = Integer.parseInt(f[1]);
            Integer first = seen.putIfAbsent(f[2], index);
            if (first != null) {
                duplicates++;
                if (first >= cut) {
                    later++;
                }
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
        return new HandlingLog(seen.size(), duplicates, later, inversions, List.copyOf(examples));
    }
}
