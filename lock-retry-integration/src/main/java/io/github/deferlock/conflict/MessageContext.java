package io.github.deferlock.conflict;

/**
 * What a {@link ContextHandler} is told about the hold its message runs under: the lock key and the fencing
 * token of this hold (larger than that of every earlier hold of the key). Pass the token to the store the handler
 * writes, so that a write of a holder that lost its lock (a long GC pause, a partition) is refused there. Immutable.
 *
 * @param key the lock key the key function gave for the message
 * @param fencingToken the fencing token of the hold the handler runs under
 */
public record MessageContext(String key, long fencingToken) {}
