package io.github.deferlock.redis.internal;

import java.nio.ByteBuffer;
import java.util.Collection;

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

    /** Where a transport reports. */
    interface Sink {
        /**
         * Runs the listeners of {@code channels}: a notice arrived, a subscription was (re)confirmed, or a
         * connection was lost (notices may have been missed: look again).
         */
        void wake(Collection<ByteBuffer> channels);
    }
}
