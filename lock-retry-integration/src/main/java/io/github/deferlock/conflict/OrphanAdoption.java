package io.github.deferlock.conflict;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.lock.internal.Parking;
import io.github.deferlock.lock.internal.Parking.OrphanState;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link OrphanSweep}'s recovery for a deferral queue: looks at a key's parked work with orphan.lua and gives
 * parked work with no drainer record a new drain token, in the order parking uses (docs/lock-keys.md, "Parked
 * work"): (1) the job {@code drain:<token>}, due now, in the queue; (2) orphan.lua with the token, in the key's
 * slot, which makes it the drainer unless another token became one meanwhile; (3) the token cancelled when it
 * did not. A crash after (1) leaves a token that takes the key at its first drain.lua (the key has no drainer);
 * a crash after (2) leaves the token as the drainer, with its job. Two processes that adopt the same key at once
 * make one drainer: the other's token is cancelled, or ends as a token behind another drainer does. Immutable and
 * threadsafe.
 */
final class OrphanAdoption implements OrphanSweep.Recovery<OrphanAdoption.Key> {

    private static final Logger log = LoggerFactory.getLogger(OrphanAdoption.class);

    /**
     * A remembered key.
     *
     * @param handler the name of the handler that parked or drained it (its drain token carries it)
     * @param key the lock key, as the handler's key function gave it
     * @param parking its parked work
     */
    record Key(String handler, String key, Parking parking) {}

    private final DelayQueue<DeferredMessage> queue;
    private final long drainerLeaseMillis;

    OrphanAdoption(DelayQueue<DeferredMessage> queue, long drainerLeaseMillis) {
        this.queue = queue;
        this.drainerLeaseMillis = drainerLeaseMillis;
    }

    @Override
    public OrphanState look(Key k) {
        return k.parking().orphanCheck();
    }

    @Override
    public boolean adopt(Key k) {
        String token = UUID.randomUUID().toString();
        String jobId = ConflictAwareHandler.drainJobId(token);
        queue.enqueue(jobId, DeferredMessage.drain(k.handler(), k.key(), token, Instant.now()), Duration.ZERO);
        OrphanState state = k.parking().adoptOrphan(token, drainerLeaseMillis);
        if (state == OrphanState.ADOPTED) {
            log.warn(
                    "deferral queue '{}': the work parked behind lock '{}' had no drain token (lost or ended); {} drains it",
                    queue.name(),
                    k.key(),
                    jobId);
            return true;
        }
        try {
            queue.cancel(jobId); // another token drains the key, or nothing is parked any more
        } catch (RuntimeException e) {
            log.debug("cannot cancel drain token {}; it finds another drainer and ends", jobId, e);
        }
        return false;
    }
}
