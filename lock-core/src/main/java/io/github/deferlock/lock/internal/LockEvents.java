package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockListener;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the user's {@link LockListener} what happened. An unchecked exception of the listener is logged and
 * ignored; an {@link Error} passes (the engine releases a new hold before it rethrows one). Threadsafe.
 */
final class LockEvents {
    private static final Logger LOG = LoggerFactory.getLogger(LockEvents.class);

    private final LockListener listener;

    LockEvents(LockListener listener) {
        this.listener = listener;
    }

    void acquired(KeyState st, long fence, long waitedNanos) {
        try {
            listener.onAcquired(st.keyString, fence, Duration.ofNanos(Math.max(0, waitedNanos)));
        } catch (RuntimeException e) {
            LOG.warn("lock listener failed in onAcquired", e);
        }
    }

    void conflict(KeyState st, Optional<Duration> holderTtl) {
        try {
            listener.onConflict(st.keyString, holderTtl);
        } catch (RuntimeException e) {
            LOG.warn("lock listener failed in onConflict", e);
        }
    }

    void released(KeyState st, long heldNanos) {
        try {
            listener.onReleased(st.keyString, Duration.ofNanos(Math.max(0, heldNanos)));
        } catch (RuntimeException e) {
            LOG.warn("lock listener failed in onReleased", e);
        }
    }

    void lost(Hold hold, Throwable cause) {
        try {
            listener.onLost(hold.state.keyString, hold.fencingToken, cause);
        } catch (RuntimeException e) {
            LOG.warn("lock listener failed in onLost", e);
        }
    }
}
