package io.github.deferlock.redis.internal;

import redis.clients.jedis.exceptions.JedisException;

/**
 * No connection of the client's pool came free within the time a call was given ({@link BoundedBorrow}). Not
 * a connection error: sending again at once would not help, so no retry policy retries it.
 */
public final class PoolExhaustedException extends JedisException {
    private static final long serialVersionUID = 1L;

    /** With the message that names the pool's size and use, and the pool's own exception. */
    public PoolExhaustedException(String message, Throwable cause) {
        super(message, cause);
    }
}
