package io.github.deferlock.redis.internal;

/**
 * Where a queue's keys live (docs/queue-keys.md): every key of queue {@code q}, including the done markers
 * written for it by conflict-aware handlers, starts with {@code deferlock:dq:{q}:}, so one ACL key pattern
 * ({@code ~deferlock:*}) covers a deployment and the hash tag keeps a queue in one cluster slot. Stateless.
 */
public final class QueueKeyspace {

    /** The start of every queue key. */
    public static final String ROOT = "deferlock:dq:";

    private QueueKeyspace() {}

    /** The common prefix of every key of queue {@code queueName} (a valid {@link Names.Kind#QUEUE_NAME}). */
    public static String prefix(String queueName) {
        return ROOT + "{" + queueName + "}:";
    }
}
