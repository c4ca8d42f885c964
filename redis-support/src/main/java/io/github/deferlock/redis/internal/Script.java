package io.github.deferlock.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One Lua script, read from a {@code .lua} resource (its {@code --@include} lines resolved by {@link
 * LuaIncludes}) and run by SHA. A {@code NOSCRIPT} reply (after a restart, a failover or {@code SCRIPT FLUSH})
 * is answered by running the body with {@code EVAL}, which also caches it again on the node that ran it;
 * callers never see it. Immutable and threadsafe.
 */
public final class Script {
    /** Builds the commands sent on a bare connection; a script's reply reads alike in RESP2 and RESP3. */
    private static final CommandObjects COMMANDS = new CommandObjects(RedisProtocol.RESP2);

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

    /**
     * Loads the script {@code file} (e.g. {@code "release.lua"}) with {@code resources}, which opens a
     * resource of the calling module by name (pass {@code r -> MyClass.class.getResourceAsStream(r)}: a
     * module's resources open only to its own code) and returns null when there is none.
     *
     * @throws IllegalStateException when the file or one of its includes is missing
     */
    public static Script load(Function<String, InputStream> resources, String file) {
        return new Script(file, LuaIncludes.resolve(file, resources).getBytes(StandardCharsets.UTF_8));
    }

    /** A script of the given text, for tests and for scripts built in code. */
    public static Script of(String name, String text) {
        return new Script(name, text.getBytes(StandardCharsets.UTF_8));
    }

    static String read(InputStream in, String file) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + file, e);
        }
    }

    /** The script's file name. */
    public String name() {
        return name;
    }

    /** The script text (includes resolved). */
    public byte[] body() {
        return body.clone();
    }

    /** The SHA-1 of the body, lowercase hex: what {@code EVALSHA} names. */
    public String sha() {
        return new String(sha, StandardCharsets.US_ASCII);
    }

    /** Runs the script: {@code EVALSHA}, and {@code EVAL} of the body on {@code NOSCRIPT}. */
    public Object run(UnifiedJedis redis, List<byte[]> keys, List<byte[]> args) {
        try {
            return redis.evalsha(sha, keys, args);
        } catch (JedisDataException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return redis.eval(body, keys, args);
        }
    }

    /**
     * Runs the script on one connection the caller holds (a pooled one it returns): {@code EVALSHA}, and {@code
     * EVAL} of the body on {@code NOSCRIPT}.
     */
    public Object run(Connection connection, List<byte[]> keys, List<byte[]> args) {
        try {
            return connection.executeCommand(COMMANDS.evalsha(sha, keys, args));
        } catch (JedisDataException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return connection.executeCommand(COMMANDS.eval(body, keys, args));
        }
    }

    /** Queues an {@code EVALSHA} of this script on a pipeline; see {@link #isNoScript} for its reply. */
    public Response<Object> queue(AbstractPipeline pipeline, List<byte[]> keys, List<byte[]> args) {
        return pipeline.evalsha(sha, keys, args);
    }

    /** Queues an {@code EVAL} of this script's body on a pipeline (after a {@code NOSCRIPT}). */
    public Response<Object> queueBody(AbstractPipeline pipeline, List<byte[]> keys, List<byte[]> args) {
        return pipeline.eval(body, keys, args);
    }

    /** Loads the script on the node that serves {@code sampleKey}, so pipelined {@code EVALSHA}s find it. */
    public void preload(UnifiedJedis redis, byte[] sampleKey) {
        redis.scriptLoad(body, sampleKey);
    }

    /**
     * Whether {@code e} is a {@code NOSCRIPT} reply: Jedis raises {@link JedisNoScriptException} for it on a
     * plain call, and a plain {@link JedisDataException} with the server's text in some cluster paths.
     */
    public static boolean isNoScript(RuntimeException e) {
        return e instanceof JedisNoScriptException
                || (e instanceof JedisDataException
                        && String.valueOf(e.getMessage()).startsWith("NOSCRIPT"));
    }

    @Override
    public String toString() {
        return name;
    }
}
