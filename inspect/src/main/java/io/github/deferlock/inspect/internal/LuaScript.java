package io.github.deferlock.inspect.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One of the inspector's Lua scripts, loaded from the {@code .lua} resource next to this class and run by SHA,
 * with {@code EVAL} on {@code NOSCRIPT}. Immutable and threadsafe.
 */
public final class LuaScript {
    private final String name;
    private final byte[] body;
    private final byte[] sha;

    private LuaScript(String name, byte[] body) {
        this.name = name;
        this.body = body;
        try {
            this.sha = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(body))
                    .getBytes(StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
    }

    /** Loads {@code <name>.lua} from this package's resources. */
    public static LuaScript load(String name) {
        try (InputStream in = LuaScript.class.getResourceAsStream(name + ".lua")) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + name + ".lua");
            }
            return new LuaScript(name, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + name, e);
        }
    }

    /** Runs the script: {@code EVALSHA}, and {@code EVAL} on {@code NOSCRIPT}. */
    public Object run(UnifiedJedis redis, List<byte[]> keys, List<byte[]> args) {
        try {
            return redis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return redis.eval(body, keys, args);
        }
    }

    @Override
    public String toString() {
        return name + ".lua";
    }
}
