package io.github.deferlock.kafka.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ObjLongConsumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the safe offsets of owned partitions ({@link OffsetTracker#toCommit()}), asynchronously on the
 * interval and synchronously at a rebalance or a close, and reports each confirmed commit. Used only on the
 * poller thread, which owns the {@code KafkaConsumer}; not threadsafe.
 */
public final class OffsetCommitter {
    private static final Logger LOG = LoggerFactory.getLogger(OffsetCommitter.class);
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(10);

    private final KafkaConsumer<?, ?> consumer;
    private final String topic;
    private final ObjLongConsumer<TopicPartition> onCommitted;

    /** A committer through {@code consumer}; {@code onCommitted} hears each confirmed (partition, offset). */
    public OffsetCommitter(KafkaConsumer<?, ?> consumer, String topic, ObjLongConsumer<TopicPartition> onCommitted) {
        this.consumer = consumer;
        this.topic = topic;
        this.onCommitted = onCommitted;
    }

    /** How long a synchronous commit may take. */
    public static Duration timeout() {
        return COMMIT_TIMEOUT;
    }

    private static Map<TopicPartition, OffsetAndMetadata> safeOffsets(Collection<OwnedPartition> of) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (OwnedPartition p : of) {
            long offset = p.offsets.toCommit();
            if (offset >= 0) {
                out.put(p.tp, new OffsetAndMetadata(offset));
            }
        }
        return out;
    }

    /** Commits the safe offsets of {@code owned} with {@code commitAsync}; a failure waits for the next interval. */
    public void commitAsync(Map<TopicPartition, OwnedPartition> owned) {
        Map<TopicPartition, OffsetAndMetadata> offsets = safeOffsets(owned.values());
        if (offsets.isEmpty()) {
            return;
        }
        Map<TopicPartition, OwnedPartition> owners = new HashMap<>();
        offsets.keySet().forEach(tp -> owners.put(tp, owned.get(tp)));
        consumer.commitAsync(offsets, (done, error) -> {
            if (error != null) {
                LOG.debug("topic '{}': async commit failed, again at the next interval: {}", topic, error.toString());
                return;
            }
            done.forEach((tp, o) -> confirmed(owners.get(tp), tp, o.offset()));
        });
    }

    /** Commits the safe offsets of {@code of} and waits (a failure is logged: those records come again). */
    public void commitSync(Collection<OwnedPartition> of) {
        Map<TopicPartition, OffsetAndMetadata> offsets = safeOffsets(of);
        if (offsets.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(offsets, COMMIT_TIMEOUT);
            for (OwnedPartition p : of) {
                OffsetAndMetadata o = offsets.get(p.tp);
                if (o != null) {
                    confirmed(p, p.tp, o.offset());
                }
            }
        } catch (WakeupException e) {
            commitSync(of); // close() woke a commit it wants done
        } catch (KafkaException e) {
            LOG.warn(
                    "topic '{}': commit of {} failed; those records are delivered again: {}",
                    topic,
                    offsets,
                    e.toString());
        }
    }

    private void confirmed(OwnedPartition p, TopicPartition tp, long offset) {
        if (p != null) {
            p.offsets.committed(offset);
        }
        onCommitted.accept(tp, offset);
    }
}
