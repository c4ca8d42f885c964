package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.DistributedPermits;
import io.github.deferlock.lock.PermitHolder;
import io.github.deferlock.lock.PermitLease;
import io.github.deferlock.redis.internal.Require;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/** The {@link DistributedPermits} of one name in one engine. Threadsafe; holds no state of its own. */
public final class RedisPermits implements DistributedPermits {
    private final LockEngine engine;
    private final String name;
    private final byte[] key;
    private final String keyString;
    private final int limit;

    /** Creates the permits; validates the name and the limit. */
    public RedisPermits(LockEngine engine, String name, int limit) {
        this.key = engine.lockKey(name);
        this.name = name;
        this.keyString = new String(key, StandardCharsets.UTF_8);
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException(
                    "limit must be within [1, " + MAX_LIMIT + "], not " + limit + " (permits '" + name + "')");
        }
        this.limit = limit;
        this.engine = engine;
        engine.checkOpen();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String key() {
        return keyString;
    }

    @Override
    public int limit() {
        return limit;
    }

    @Override
    public Optional<PermitLease> tryAcquire(Duration wait) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public Optional<PermitLease> tryAcquire(Duration wait, Duration lease) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public PermitLease acquire(Duration wait) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public PermitLease acquire(Duration wait, Duration lease) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public <T> T withPermit(Duration wait, Callable<T> body) {
        Require.notNull("body", body);
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public void withPermit(Duration wait, Runnable body) {
        Require.notNull("body", body);
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public List<PermitHolder> holders() {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public String toString() {
        return "DistributedPermits[" + keyString + ", limit=" + limit + "]";
    }
}
