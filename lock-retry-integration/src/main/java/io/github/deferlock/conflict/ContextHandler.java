package io.github.deferlock.conflict;

/**
 * The work to do for one message, run while its lock is held, told the {@link MessageContext} of that hold (its
 * key and fencing token). Use it instead of a {@link MessageHandler} when the handler writes to a store that
 * checks fencing tokens: the context is handed to the handler, whatever thread runs it.
 *
 * @param <M> the message type
 */
@FunctionalInterface
public interface ContextHandler<M> {

    /**
     * Handles one message under its lock; an exception fails this delivery as for {@link
     * MessageHandler#handle(Object)}.
     */
    void handle(M message, MessageContext context) throws Exception;
}
