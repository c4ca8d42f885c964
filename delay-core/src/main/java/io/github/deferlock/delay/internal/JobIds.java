package io.github.deferlock.delay.internal;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * Generates job ids and call tokens: 16 characters of base64url for 96 bits, a random 64-bit prefix (renewed
 * every 2^32 ids) followed by a 32-bit counter, so ids are unique without a {@link SecureRandom} call per job.
 * One instance per queue; threadsafe.
 */
public final class JobIds {
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final RandomGenerator random;
    private final AtomicLong counter;
    private volatile long prefix;

    /** Ids with a fresh random prefix and counter. */
    public JobIds() {
        this(new SecureRandom());
    }

    /** Ids drawn from {@code random} (a {@link SecureRandom} but in tests). */
    public JobIds(RandomGenerator random) {
        this.random = random;
        this.counter = new AtomicLong(random.nextInt() & 0xFFFF_FFFFL);
        this.prefix = random.nextLong();
    }

    /** A new id, never returned before by this instance and unique across processes with near certainty. */
    public String next() {
        long n = counter.getAndIncrement();
        long p = prefix;
        if ((n & 0xFFFF_FFFFL) == 0xFFFF_FFFFL) {
            prefix = random.nextLong(); // the counter wraps next: a new prefix keeps ids unique
        }
        return encode(p, n);
    }

    /** The id of {@code prefix} and the low 32 bits of {@code n}. */
    static String encode(long prefix, long n) {
        byte[] b = new byte[12];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (prefix >>> (56 - 8 * i));
        }
        for (int i = 0; i < 4; i++) {
            b[8 + i] = (byte) (n >>> (24 - 8 * i));
        }
        return ENCODER.encodeToString(b);
    }
}
