package io.github.deferlock.delay.internal;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Names the write calls of one queue client so that their replay records take memory bounded by how many calls
 * run at once, not by how many are made (docs/queue-keys.md, "Replay records"). A call's name, its token, is
 * {@code <slot>~<call>}: the record lives at the slot's key ({@code r:<slot>}) and holds the call's id, so the
 * next call on the slot overwrites it and only a resend of the same call finds it (replay.lua).
 *
 * <p>A slot is taken by {@link #lease()} and serves one call at a time. The caller gives it back with {@link
 * #done(String)} once the call is settled for good (a reply came, so it is never resent); the slot then names
 * the client's next call. A call that failed keeps its slot (no {@code done}): a resend may still come, and its
 * record lives out its TTL; the slot is not used again. A slot given back twice only costs exactness (two calls
 * on one slot overwrite each other's records, so a resend reruns as if its record had expired), never a wrong
 * replay: a record answers only the call id it holds. Threadsafe.
 */
public final class ReplaySlots {
    /** Between the slot and the call id in a token; not in base64url, the alphabet of slot names. */
    private static final char SEPARATOR = '~';

    private final JobIds names;
    private final ConcurrentLinkedDeque<String> free = new ConcurrentLinkedDeque<>();
    private final AtomicLong calls = new AtomicLong();

    /**
     * @param names the fresh slot names (unique across processes)
     */
    public ReplaySlots(JobIds names) {
        this.names = names;
    }

    /** A token for a new call: a free slot (the one given back last, else a new one) and a fresh call id. */
    public String lease() {
        String slot = free.pollFirst();
        if (slot == null) {
            slot = names.next();
        }
        return slot + SEPARATOR + Long.toString(calls.incrementAndGet(), 36);
    }

    /** The call named {@code token} is settled and will not be resent: its slot names the next call. */
    public void done(String token) {
        free.offerFirst(slot(token));
    }

    /** How many slots wait for a call (for tests). */
    int free() {
        return free.size();
    }

    /** The slot of {@code token}: its record's key is {@code r:<slot>}. */
    public static String slot(String token) {
        int at = token.indexOf(SEPARATOR);
        return at < 0 ? token : token.substring(0, at);
    }

    /**
     * The scripts' replay argument of the call named {@code token}: {@code "<ttl ms> <call id>"} (replay.lua).
     */
    public static byte[] argument(long ttlMs, String token) {
        int at = token.indexOf(SEPARATOR);
        String call = at < 0 ? token : token.substring(at + 1);
        return (ttlMs + " " + call).getBytes(StandardCharsets.UTF_8);
    }
}
