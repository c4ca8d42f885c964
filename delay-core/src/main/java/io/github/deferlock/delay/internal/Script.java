package io.github.deferlock.delay.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One Lua script, loaded from the {@code .lua} resource next to this class and run by SHA. A {@code
 * NOSCRIPT} reply (after a restart or failover) is answered by running the body with {@code EVAL}, which
 * also caches it on that node; callers never see it. Immutable and threadsafe.
 */
public final class Script {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private final String name;
    private final byte[] body;
    private final byte[] sha;

    private Script(String name, byte[] body) {
        this.name = name;
        this.body = body;
        this.sha = sha1Hex(body);
    }

    /** Loads {@code <name>.lua} from this package's resources. */
    public static Script load(String name) {
        try (InputStream in = Script.class.getResourceAsStream(name + ".lua")) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + name + ".lua");
            }
            return new Script(name, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + name, e);
        }
    }

    /** The script's name (its file name without {@code .lua}). */
    public String name() {
        return name;
    }

    /** Runs the script: {@code EVALSHA}, and {@code EVAL} on {@code NOSCRIPT}. */
    public Object run(UnifiedJedis redis, List<byte[]> keys, List<byte[]> args) {
        try {
            return redis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return redis.eval(body, keys, args);
        }
    }

    /** Queues an {@code EVALSHA} of this script on a pipeline. */
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

    private static byte[] sha1Hex(byte[] body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(body);
            byte[] hex = new byte[digest.length * 2];
            for (int i = 0; i < digest.length; i++) {
                hex[2 * i] = HEX[(digest[i] >> 4) & 0xf];
                hex[2 * i + 1] = HEX[digest[i] & 0xf];
            }
            return hex;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
    }

    @Override
    public String toString() {
        return name + ".lua";
    }
}
