package io.github.deferlock.inspect.internal;

import io.github.deferlock.redis.internal.Names;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * lock-core's key layout, read back (docs/lock-keys.md): a lock named {@code n} under prefix {@code p} is
 * {@code p{e}}, {@code e} being the UTF-8 of {@code n} with {@code %}, <code>{</code> and <code>}</code>
 * written as {@code %25}, {@code %7B}, {@code %7D}; its fencing counter is {@code p{e}:fence}. Stateless.
 */
public final class LockKeys {
    private LockKeys() {}

    /** The lock key of {@code name} under {@code prefix}. */
    public static String lockKey(String prefix, String name) {
        byte[] encoded = Names.requireValid(Names.Kind.LOCK_NAME, name);
        ByteArrayOutputStream out = new ByteArrayOutputStream(encoded.length + 8);
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
        return prefix + out.toString(StandardCharsets.UTF_8);
    }

    /** The fencing counter of a lock key. */
    public static String fenceKey(String lockKey) {
        return lockKey + ":fence";
    }

    /** The parked FIFO of a lock key (ordered DEFER): ids of the work parked behind the key, oldest first. */
    public static String parkedKey(String lockKey) {
        return lockKey + ":parked";
    }

    /** The parked items of a lock key: item id to payload (JSON with {@code firstConflictMillis}). */
    public static String parkedItemsKey(String lockKey) {
        return lockKey + ":parked-items";
    }

    /**
     * The lock name of {@code key} under {@code prefix}; empty when the key is not a lock key of that prefix
     * (a counter, a release record, the registry, another prefix's key).
     */
    public static Optional<String> nameOf(String prefix, String key) {
        if (!key.startsWith(prefix + "{") || !key.endsWith("}") || key.length() < prefix.length() + 3) {
            return Optional.empty();
        }
        String e = key.substring(prefix.length() + 1, key.length() - 1);
        if (e.indexOf('{') >= 0 || e.indexOf('}') >= 0) {
            return Optional.empty();
        }
        StringBuilder name = new StringBuilder(e.length());
        for (int i = 0; i < e.length(); i++) {
            char c = e.charAt(i);
            if (c == '%') {
                if (e.startsWith("%25", i)) {
                    name.append('%');
                } else if (e.startsWith("%7B", i)) {
                    name.append('{');
                } else if (e.startsWith("%7D", i)) {
                    name.append('}');
                } else {
                    return Optional.empty();
                }
                i += 2;
            } else {
                name.append(c);
            }
        }
        return Optional.of(name.toString());
    }

    /** A {@code SCAN MATCH} pattern for every lock key under {@code prefix}: glob characters escaped. */
    public static String scanPattern(String prefix) {
        StringBuilder p = new StringBuilder(prefix.length() + 4);
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                p.append('\\');
            }
            p.append(c);
        }
        return p.append("{*}").toString();
    }
}
