package io.github.deferlock.conflict;

/**
 * The work to do for one message, run while its lock is held.
 *
 * @param <M> the message type
 */
@FunctionalInterface
public interface MessageHandler<M> {

    /**
     * Handles one message. An exception fails this delivery: from {@link ConflictAwareHandler#handle(Object)}
     * it reaches the caller (checked ones wrapped in {@link HandlerFailedException}); for a deferred message
     * the delay queue retries it with its backoff and dead-letters it after its max attempts.
     */
    void handle(M message) throws Exception;
}
