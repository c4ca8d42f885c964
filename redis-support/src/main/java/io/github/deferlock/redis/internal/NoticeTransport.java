package io.github.deferlock.redis.internal;

import java.nio.ByteBuffer;
import java.util.Collection;
import org.slf4j.Logger;
import redis.clients.jedis.Connection;

/**
 * How a {@link NoticeBus} hears its channels: {@link PlainNotices} ({@code SUBSCRIBE}) or {@link
 * ShardedNotices} ({@code SSUBSCRIBE} per cluster master). A transport keeps the set of channels it should
 * be subscribed to and reports to its {@link Sink}, never while holding its own monitor. Threadsafe.
 */
interface NoticeTransport {
    /** Subscribes {@code channel} (idempotent). */
    void add(ByteBuffer channel);

    /** Unsubscribes {@code channel} (idempotent). */
    void remove(ByteBuffer channel);

    /** Ends every subscription; idempotent. */
    void close();

    /**
     * Closes a connection whose subscription ended, as broken, so its pool destroys it instead of keeping it: it
     * may still be subscribed (an error reply ended the reading loop) or have a reply on its way. A close that
     * fails on a dead socket is logged at DEBUG on {@code log}: the caller subscribes again either way.
     */
    static void discard(Connection c, Logger log, String what) {
        c.setBroken();
        try {
            c.close();
        } catch (RuntimeException e) {
            log.debug("closing the {} connection failed: {}", what, e.toString());
        }
    }

    /** Where a transport reports. */
    interface Sink {
        /**
         * Runs the listeners of {@code channels}: a notice arrived, a subscription was (re)confirmed, or a
         * connection was lost (notices may have been missed: look again).
         */
        void wake(Collection<ByteBuffer> channels);
    }
}
