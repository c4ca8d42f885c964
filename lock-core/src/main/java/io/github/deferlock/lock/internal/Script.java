package io.github.deferlock.lock.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One Lua script from a resource next to this class, called by SHA. {@code NOSCRIPT} (after a restart,
 * failover or {@code SCRIPT FLUSH}) is answered with {@code EVAL} of the body, which also caches it again on
 * the node that ran it. Immutable; threadsafe.
 */
final class Script {
    static final Script ACQUIRE = load("acquire.lua");
    static final Script RELEASE = load("release.lua");
    static final Script RENEW = load("renew.lua");

    private final String name;
    private final byte[] body;
    private final byte[] sha;

    private Script(String name, byte[] body) {
        this.name = name;
        this.body = body;
        try {
            this.sha = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(body))
                    .getBytes(StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JDK", e);
        }
    }

    private static Script load(String resource) {
        try (InputStream in = Script.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("script resource is missing: " + resource);
            }
            return new Script(resource, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + resource, e);
        }
    }

    /** Runs the script; Jedis exceptions other than NOSCRIPT pass through. */
    Object run(UnifiedJedis redis, List<byte[]> keys, List<byte[]> args) {
        try {
            return redis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return redis.eval(body, keys, args);
        } catch (JedisDataException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT")) {
                return redis.eval(body, keys, args);
            }
            throw e;
        }
    }

    /** The script text, for {@code EVAL} inside a pipeline. */
    byte[] body() {
        return body;
    }

    @Override
    public String toString() {
        return name;
    }
}
