package io.github.deferlock.lock.internal;

import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.Require;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The Redis key layout of a lock named {@code n} under prefix {@code p} (docs/lock-keys.md):
 *
 * <ul>
 *   <li>lock: {@code p{e}} where {@code e} is the UTF-8 of {@code n} with '%', '{' and '}' escaped as
 *       {@code %25}, {@code %7B}, {@code %7D}; so the hash tag is exactly {@code e}, never empty, and every
 *       name has its own key;
 *   <li>fencing counter: {@code p{e}:fence} (same slot);
 *   <li>waiter queue: {@code p{e}:waiters} (list of waiter ids) and {@code p{e}:waiter-deadlines} (zset);
 *   <li>waiter channels: {@code p{e}:released:<waiter id>} (one per waiting {@code RedisLocks});
 *   <li>release record: {@code p{e}:last-release} (the token of the last release, kept briefly, so a resent
 *       release recognises its own success);
 *   <li>parked work ({@link Parking}): {@code p{e}:parked} (list of item ids), {@code p{e}:parked-items} (hash:
 *       id to payload), {@code p{e}:parked-attempts} (hash: id to failed runs), {@code p{e}:drainer} (the drain
 *       token of the process draining the key);
 *   <li>rate limiter ({@link RedisRateLimiter}): {@code p{e}:rate} (a string: the GCRA theoretical arrival time
 *       in server microseconds; expires when the limiter is idle);
 *   <li>permits ({@link PermitEngine}): {@code p{e}} itself is then a zset of holders (token to lease deadline),
 *       {@code p{e}:permits} (hash: the limit and each holder's slot and fencing token), {@code
 *       p{e}:released-permits} (zset: recently released tokens, so a resent release recognises its success);
 *       the fencing counter, waiter queue and channels are the lock's.
 * </ul>
 *
 * Stateless.
 */
final class Keys {
    private Keys() {}

    /**
     * The lock key of {@code name}.
     *
     * @throws IllegalArgumentException when the name breaks the one name rule (docs/names.md)
     */
    static byte[] lockKey(String prefix, String name) {
        Require.notNull("name", name);
        byte[] encoded = Names.requireValid(Names.Kind.LOCK_NAME, name);
        ByteArrayOutputStream out = new ByteArrayOutputStream(prefix.length() + name.length() + 8);
        out.writeBytes(prefix.getBytes(StandardCharsets.UTF_8));
        out.write('{');
        for (byte b : encoded) {
            switch (b) {
                case '%' -> out.writeBytes(new byte[] {'%', '2', '5'});
                case '{' -> out.writeBytes(new byte[] {'%', '7', 'B'});
                case '}' -> out.writeBytes(new byte[] {'%', '7', 'D'});
                default -> out.write(b);
            }
        }
        out.write('}');
        return out.toByteArray();
    }

    /** The fencing counter of a lock key. */
    static byte[] fenceKey(byte[] lockKey) {
        return suffix(lockKey, ":fence");
    }

    /** The release record of a lock key: the last released token, kept briefly (release.lua). */
    static byte[] lastReleaseKey(byte[] lockKey) {
        return suffix(lockKey, ":last-release");
    }

    /** The waiter queue of a lock key: waiter ids in arrival order (waiters.lua). */
    static byte[] waitersKey(byte[] lockKey) {
        return suffix(lockKey, ":waiters");
    }

    /** The waiter deadlines of a lock key: waiter id to deadline in server ms (waiters.lua). */
    static byte[] waiterDeadlinesKey(byte[] lockKey) {
        return suffix(lockKey, ":waiter-deadlines");
    }

    /** The parked FIFO of a lock key: ids of deferred work waiting behind the key (park.lua). */
    static byte[] parkedKey(byte[] lockKey) {
        return suffix(lockKey, ":parked");
    }

    /** The parked items of a lock key: id to payload (park.lua). */
    static byte[] parkedItemsKey(byte[] lockKey) {
        return suffix(lockKey, ":parked-items");
    }

    /** The failed runs of a lock key's parked items: id to count. */
    static byte[] parkedAttemptsKey(byte[] lockKey) {
        return suffix(lockKey, ":parked-attempts");
    }

    /** The drainer record of a lock key: the drain token of the process running its parked items (drain.lua). */
    static byte[] drainerKey(byte[] lockKey) {
        return suffix(lockKey, ":drainer");
    }

    /** The rate limiter state of a name's key: the GCRA theoretical arrival time (rate.lua). */
    static byte[] rateKey(byte[] lockKey) {
        return suffix(lockKey, ":rate");
    }

    /** The holder records of permits: the limit and each holder's slot and fencing token (permit-acquire.lua). */
    static byte[] permitsKey(byte[] lockKey) {
        return suffix(lockKey, ":permits");
    }

    /** The release records of permits: recently released tokens (permit-release.lua). */
    static byte[] releasedPermitsKey(byte[] lockKey) {
        return suffix(lockKey, ":released-permits");
    }

    /** The prefix of a lock key's waiter channels; a waiter's channel is this followed by its id. */
    static byte[] waiterChannelPrefix(byte[] lockKey) {
        return suffix(lockKey, ":released:");
    }

    /** The channel on which the waiter {@code waiterId} of a lock key is told the key is reserved for it. */
    static byte[] waiterChannel(byte[] lockKey, byte[] waiterId) {
        byte[] prefix = waiterChannelPrefix(lockKey);
        byte[] out = Arrays.copyOf(prefix, prefix.length + waiterId.length);
        System.arraycopy(waiterId, 0, out, prefix.length, waiterId.length);
        return out;
    }

    private static byte[] suffix(byte[] key, String suffix) {
        byte[] s = suffix.getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(key, key.length + s.length);
        System.arraycopy(s, 0, out, key.length, s.length);
        return out;
    }
}
