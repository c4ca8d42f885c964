package io.github.deferlock.delay;

import io.github.deferlock.delay.internal.Envelope;
import io.github.deferlock.delay.internal.QueueScripts;
import io.github.deferlock.redis.internal.Require;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The dead letters of one {@link DelayQueue}, from {@link DelayQueue#deadLetters()}: jobs that used their
 * attempts, timed out on their last one, could not be decoded, or were dead-lettered on purpose. List them,
 * move them back to due, or delete them. Threadsafe; holds no connection.
 */
public final class DeadLetters {
    /** Dead letters requeued or purged per script call. */
    static final int BULK = 500;

    private final QueueScripts scripts;
    private final LongSupplier count;

    DeadLetters(QueueScripts scripts, LongSupplier count) {
        this.scripts = scripts;
        this.count = count;
    }

    /**
     * The oldest dead letters, oldest first, with why each died ({@link DeadLetter#cause()}).
     *
     * @param limit how many at most, 1 to {@link DelayQueue#MAX_DEAD_LIST} (page through larger sets)
     * @throws IllegalArgumentException when {@code limit} is out of range
     * @throws DelayQueueException when Redis fails
     */
    public List<DeadLetter> list(int limit) {
        Require.within("limit", limit, 1, DelayQueue.MAX_DEAD_LIST);
        List<QueueScripts.Dead> dead = scripts.deadList(limit);
        List<DeadLetter> out = new ArrayList<>(dead.size());
        for (QueueScripts.Dead d : dead) {
            Envelope env = Envelope.parse(d.envelope());
            out.add(new DeadLetter(
                    d.id(),
                    env.attempts(),
                    Instant.ofEpochMilli(d.diedAtMs()),
                    d.lastError(),
                    env.payloadText(),
                    DeadLetterCause.valueOf(env.deadCause().name()),
                    env.headers()));
        }
        return out;
    }

    /**
     * Moves one dead letter back to due now, with its attempts reset to 0; its headers stay.
     *
     * @return true when moved; false when there is no dead job with this id
     * @throws NullPointerException when {@code id} is null
     * @throws IllegalArgumentException when the id is empty, over 512 bytes or not valid Unicode (docs/names.md)
     * @throws DelayQueueException when Redis fails
     */
    public boolean requeue(String id) {
        return scripts.requeue(DelayQueue.requireId(id)) == 1L;
    }

    /**
     * Moves every dead letter back to due now (in script calls of 500), with attempts reset to 0.
     *
     * @return how many were moved
     * @throws DelayQueueException when Redis fails
     */
    public long requeueAll() {
        return inBulk(() -> scripts.requeueOldest(BULK));
    }

    /**
     * Deletes every dead letter (in script calls of 500).
     *
     * @return how many were deleted
     * @throws DelayQueueException when Redis fails
     */
    public long purge() {
        return inBulk(() -> scripts.purgeOldest(BULK));
    }

    /**
     * How many jobs are in the dead letters.
     *
     * @throws DelayQueueException when Redis fails
     */
    public long count() {
        return count.getAsLong();
    }

    private long inBulk(LongSupplier step) {
        long limit = count() + BULK; // jobs dying meanwhile do not keep us here forever
        long total = 0;
        long n;
        do {
            n = step.getAsLong();
            total += n;
        } while (n == BULK && total < limit);
        return total;
    }
}
