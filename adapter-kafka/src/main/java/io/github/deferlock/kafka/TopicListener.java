package io.github.deferlock.kafka;

import io.github.deferlock.consumer.ConsumerListener;
import java.util.Collection;
import org.apache.kafka.common.TopicPartition;

/**
 * Hears what a {@link TopicConsumer} does with records, for logs and metrics; lock events go to the {@link
 * io.github.deferlock.conflict.ConflictListener} of the handler. Every method has a no-op default, must be fast
 * and must not throw (an exception is logged and ignored). Implementations must be threadsafe: the handler threads
 * and the poller call them. {@code recordId} is {@code <topic>-<partition>@<offset>}.
 */
public interface TopicListener extends ConsumerListener {

    /** The broker confirmed the commit of {@code offset} (the next offset to read) for {@code partition}. */
    default void onCommitted(TopicPartition partition, long offset) {}

    /** The group gave this consumer {@code partitions}. */
    default void onAssigned(Collection<TopicPartition> partitions) {}

    /**
     * This consumer gave up {@code partitions} after committing what was safe ({@code lost}: the group had
     * already moved them, nothing was committed); records of them not yet started were dropped and go to the
     * partitions' next owner.
     */
    default void onRevoked(Collection<TopicPartition> partitions, boolean lost) {}
}
