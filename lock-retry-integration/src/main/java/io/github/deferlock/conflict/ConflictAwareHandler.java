package io.github.deferlock.conflict;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.EnqueueResult;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.JobHandler;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.DistributedPermits;
import io.github.deferlock.lock.LockAttempt;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.lock.RateLimit;
import io.github.deferlock.lock.RateLimitedException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.lock.internal.Parking;
import io.github.deferlock.lock.internal.RedisLock;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.QueueKeyspace;
import io.github.deferlock.redis.internal.Require;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

/**
 * Processes messages under a per-message lock and applies an {@link OnConflict} strategy when the lock is
 * taken. It plugs into any consumer loop (Kafka, a Redis list, an HTTP handler): call {@link #handle(Object)}
 * for each message and commit the message to its source once it returns. With {@link OnConflict#DEFER} a
 * conflicting message is stored ({@link Deferrals}) and {@code handle} returns {@link Outcome#DEFERRED} at
 * once; a worker runs it later with the same handler under the same lock. By default ({@link
 * DeferMode#ORDERED}) it parks behind its key and runs after the release, and while the key has parked
 * messages every new message of the key parks behind them: a caller that hands a key's messages to {@code
 * handle} one at a time, in order, has them run in that order, deferred or not.
 *
 * <pre>{@code
 * ConflictAwareHandler<OrderEvent> orders = ConflictAwareHandler.builder("order-events", OrderEvent.class, locks)
 *         .key(e -> "order:" + e.orderId())
 *         .messageId(OrderEvent::eventId)
 *         .handler(e -> ledger.apply(e))
 *         .onConflict(OnConflict.DEFER)
 *         .deferrals(deferrals)
 *         .build();
 * for (OrderEvent e : consumer.poll()) {
 *     orders.handle(e);   // PROCESSED or DEFERRED; the consumer thread never waits for a hot key
 * }
 * }</pre>
 *
 * <p><b>Crash safety with DEFER.</b> {@code handle} returns only after the deferral is stored in Redis, so a
 * caller that commits its source afterwards never loses a message: if the process dies between "conflict
 * seen" and "deferral stored", the source redelivers the message. If it dies after the deferral was stored
 * but before the source commit, the source redelivers a message that is also deferred; with a {@link
 * Builder#messageId(Function) message id} the second copy is recognised (the deferral is keyed by the id,
 * and a "done" marker written under the lock makes whichever copy runs second a {@link Outcome#DUPLICATE}),
 * so the handler does not run twice. See docs/strategies.md.
 *
 * <p>Threadsafe once built; the builder is not.
 *
 * @param <M> the message type; with DEFER it must round-trip through the deferrals' ObjectMapper
 */
public final class ConflictAwareHandler<M> {

    private static final Logger log = LoggerFactory.getLogger(ConflictAwareHandler.class);

    /**
     * The text a dead letter's reason starts with when its lock stayed taken past the deferral limit; {@link
     * DeadLetterReason#of(String)} classifies a stored reason without matching text.
     */
    public static final String CONFLICT_PERSISTED = DeadLetterReason.CONFLICT_PERSISTED.text();

    private final String name;
    private final RedisLocks locks;
    private final Function<? super M, String> keyFn;
    private final Function<? super M, String> idFn;
    private final ContextHandler<? super M> handler;
    private final OnConflict onConflict;
    private final Deferrals deferrals;
    private final ConflictListener listener;
    private final ConflictDispatch dispatch;
    private final JavaType type;
    private final int permits;
    private final RateLimit rateLimit;
    private final String rateLimiterName;

    private ConflictAwareHandler(Builder<M> b) {
        this.name = b.name;
        this.locks = b.locks;
        this.keyFn = Require.notNull("key function (call key(...))", b.keyFn);
        this.handler = Require.notNull("handler (call handler(...))", b.handler);
        this.idFn = b.idFn;
        this.onConflict = Require.orDefault(b.onConflict, OnConflict.THROW);
        this.deferrals = b.deferrals;
        this.listener = Require.orDefault(b.listener, new ConflictListener() {});
        this.permits = Require.orDefault(b.permits, 1);
        this.rateLimit = b.rateLimit;
        this.rateLimiterName = b.rateLimiterName;
        if (onConflict == OnConflict.DEFER && deferrals == null) {
            throw new IllegalStateException(
                    "handler '" + name + "' uses OnConflict.DEFER but has no deferrals: call deferrals(...)");
        }
        this.dispatch = new ConflictDispatch(
                Require.orDefault(b.sleepRetry, SleepRetry.DEFAULT),
                listener,
                ContentionRecorder.of(Require.orDefault(b.conflictStats, true)));
        ObjectMapper mapper = deferrals == null ? new ObjectMapper() : deferrals.mapper();
        this.type = b.typeRef != null
                ? mapper.getTypeFactory().constructType(b.typeRef)
                : mapper.getTypeFactory().constructType(b.type);
        if (deferrals != null) {
            deferrals.register(this);
        }
    }

    /**
     * Returns a builder for a handler named {@code name} (the name deferred messages carry, so every process
     * that runs them must use the same one) of messages of {@code type}.
     *
     * @throws IllegalArgumentException when the name is not 1 to 100 bytes of UTF-8 of valid Unicode
     *     (docs/names.md)
     */
    public static <M> Builder<M> builder(String name, Class<M> type, RedisLocks locks) {
        Require.notNull("type", type);
        return new Builder<>(name, type, null, locks);
    }

    /** Like {@link #builder(String, Class, RedisLocks)} for a generic message type. */
    public static <M> Builder<M> builder(String name, TypeReference<M> type, RedisLocks locks) {
        Require.notNull("type", type);
        return new Builder<>(name, null, type, locks);
    }

    /** The handler's name. */
    public String name() {
        return name;
    }

    /** The strategy applied on conflict (default {@link OnConflict#THROW}). */
    public OnConflict onConflict() {
        return onConflict;
    }

    /**
     * Handles one message: takes its lock, runs the handler, releases the lock; on conflict applies the
     * strategy.
     *
     * @return {@link Outcome#PROCESSED}, {@link Outcome#DEFERRED} (DEFER only: stored, runs later) or {@link
     *     Outcome#DUPLICATE} (its id was already processed)
     * @throws LockConflictException with THROW at once, with SLEEP_RETRY after its bounds
     * @throws io.github.deferlock.lock.LockLostException when the lock was lost while the handler ran
     * @throws HandlerFailedException wrapping a checked exception from the handler (unchecked ones pass)
     * @throws IllegalArgumentException when the key function returns null or an empty key, or the message id
     *     breaks the name rule (1 to 400 bytes of UTF-8 of valid Unicode, docs/names.md)
     */
    public Outcome handle(M message) {
        Require.notNull("message", message);
        String id = idFn == null ? null : idFn.apply(message);
        return handle(message, id, null);
    }

    /**
     * {@link #handle(Object)} with the message id; {@code carrierId}, when not null, is the id of the dead-letter
     * carrier job running now whose message this is (requeued from the dead letters).
     */
    private Outcome handle(M message, String id, String carrierId) {
        if (id != null) {
            Names.requireValid(Names.Kind.MESSAGE_ID, id);
        }
        String key = keyOf(message);
        DistributedLock lock = guard(key);
        boolean ordered = onConflict == OnConflict.DEFER && deferrals.mode() == DeferMode.ORDERED;
        if (dispatch.acquire(lock, key, onConflict, System.nanoTime(), ordered)) {
            return runLocked(lock, key, message, onConflict == OnConflict.DEFER ? id : null);
        }
        if (ordered) {
            return park(lock, message, key, id, carrierId); // the lock is taken, or work is parked behind it
        }
        defer(message, key, id); // timed DEFER, and the lock is taken
        return Outcome.DEFERRED;
    }

    /**
     * Adapts this handler to a {@link DelayQueue} worker over the caller's own queue of messages: each job's
     * payload is handled as by {@link #handle(Object)}, the job id serving as the message id when no id
     * function is set (then a job id over the message id limit of 400 bytes fails its delivery with an {@code
     * IllegalArgumentException}; docs/names.md). With DEFER a conflicting job moves to the deferrals and is acknowledged in its own
     * queue.
     */
    public JobHandler<M> jobHandler() {
        return job -> {
            M m = job.payload();
            String id = idFn != null ? idFn.apply(m) : job.id();
            handle(m, id, null);
        };
    }

    /**
     * The lock key of {@code message}: what the {@link Builder#key key function} returns for it. The consumer
     * adapters run the messages of one key in their delivery order by it.
     *
     * @throws IllegalArgumentException when the key function returns null or an empty key
     */
    public String key(M message) {
        return keyOf(message);
    }

    /**
     * What a message of {@code key} must take before it runs: the key's lock (the default), one of its permits
     * ({@link Builder#permits(int)}), with a start from the rate limiter first when there is one ({@link
     * Builder#rateLimit(RateLimit)}). Made per call.
     */
    private DistributedLock guard(String key) {
        DistributedLock base = permits > 1 ? new PermitGuard(locks, key, permits) : locks.get(key);
        if (rateLimit == null) {
            return base;
        }
        return new RateGuard(locks.rateLimiter(rateLimiterName == null ? key : rateLimiterName, rateLimit), base);
    }

    private String keyOf(M message) {
        String key = keyFn.apply(message);
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("the key function of handler '" + name + "' returned "
                    + (key == null ? "null" : "an empty key") + " for message " + message);
        }
        return key;
    }

    private Outcome runLocked(DistributedLock lock, String key, M message, String id) {
        return LockRunner.runHeld(
                lock,
                key,
                () -> {
                    if (id != null && isDone(id)) {
                        LockRunner.safe(() -> listener.onDuplicateSkipped(key, id));
                        return Outcome.DUPLICATE;
                    }
                    handler.handle(message, new MessageContext(key, lock.fencingToken()));
                    if (id != null) {
                        markDone(lock, id);
                    }
                    return Outcome.PROCESSED;
                },
                listener);
    }

    /**
     * The done marker of message {@code id}: under the deferral queue's key prefix (one ACL pattern covers it,
     * same cluster slot as the queue), with the (handler, id) pair encoded without ambiguity.
     */
    private String doneKey(String id) {
        return QueueKeyspace.prefix(deferrals.name()) + "done:" + Names.pair(name, id);
    }

    private boolean isDone(String id) {
        return deferrals != null && deferrals.redis().exists(doneKey(id));
    }

    /**
     * Writes the done marker of a message whose handler ran, with {@code lock} held. A Redis failure here
     * (unreachable, {@code LOADING}, a failover) is waited out, the write tried again with a backoff (50 ms doubling
     * to 1 s) for up to half the lock's lease: a handling that failed only at its marker would be run again by the
     * source's redelivery. Within half a lease the hold is still ours (the watchdog renewed it at most a third of a
     * lease before Redis went away, and renews it once Redis answers); after it the failure is thrown, as a Redis
     * failure (no attempt spent), and the source's retry may run the handler again (at-least-once).
     */
    private void markDone(DistributedLock lock, String id) {
        if (deferrals == null) {
            return;
        }
        long waitMillis = lock instanceof RedisLock r
                ? r.defaultLease().toMillis() / 2
                : lock instanceof Guard g ? g.defaultLease().toMillis() / 2 : 0;
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        long pause = 50;
        while (true) {
            try {
                deferrals
                        .redis()
                        .set(
                                doneKey(id),
                                "1",
                                SetParams.setParams()
                                        .px(deferrals.doneMarkerTtl().toMillis()));
                return;
            } catch (JedisException e) {
                if (System.nanoTime() + pause * 1_000_000L > deadline) {
                    throw e;
                }
                log.debug("done marker of message {} of handler '{}' waits for Redis: {}", id, name, e.toString());
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    e.addSuppressed(interrupted);
                    throw e;
                }
                pause = Math.min(1_000, pause * 2);
            }
        }
    }

    /**
     * {@link #markDone} for message {@code id}, and in the same round trip whether parked item {@code afterItem}
     * (the next in the key's FIFO, null for none) already ran: its done marker's key is the queue's {@code done:}
     * prefix followed by the item id, which is the (handler, message id) pair for an item with a message id. The
     * answer is valid for running that item while the key stays held. On a Redis failure the marker is written as
     * {@link #markDone} does and the answer is null (not known).
     */
    private Boolean markDoneAndLook(DistributedLock lock, String id, String afterItem) {
        if (deferrals == null || afterItem == null) {
            markDone(lock, id);
            return null;
        }
        try (AbstractPipeline p = deferrals.redis().pipelined()) {
            p.set(
                    doneKey(id),
                    "1",
                    SetParams.setParams().px(deferrals.doneMarkerTtl().toMillis()));
            Response<Boolean> done = p.exists(QueueKeyspace.prefix(deferrals.name()) + "done:" + afterItem);
            p.sync();
            return done.get();
        } catch (JedisException e) {
            markDone(lock, id);
            return null;
        }
    }

    private void defer(M message, String key, String id) {
        JsonNode json = deferrals.mapper().valueToTree(message);
        DeferredMessage dm = DeferredMessage.first(name, key, id, json, Instant.now());
        Duration delay = deferrals.backoff().delay(1);
        DelayQueue<DeferredMessage> queue = deferrals.queue();
        EnqueueResult r = id == null ? queue.enqueue(dm, delay) : queue.enqueue(Names.pair(name, id), dm, delay);
        if (r.duplicate()) {
            log.debug("message {} of handler '{}' was already deferred", id, name);
        }
        LockRunner.safe(() -> listener.onDeferred(key, 1, delay));
    }

    // ---------------------------------------------------------------- ordered DEFER (docs/lock-keys.md, "Parked work")

    /** Work done per delivery of a drain token before it gives its thread to other keys' tokens. */
    private static final int DRAIN_BATCH = 256;

    private static Parking parking(DistributedLock lock) {
        if (lock instanceof RedisLock redisLock) {
            return redisLock.parking();
        }
        if (lock instanceof Guard guard) {
            return guard.parking();
        }
        throw new IllegalStateException("ordered DEFER needs the locks of a RedisLocks, not " + lock.getClass());
    }

    /** The longest failure text a dead letter's reason quotes: a reason must fit the queue's payload limit. */
    static final int MAX_QUOTED_CHARS = 1_000;

    /** {@code text}, cut to {@link #MAX_QUOTED_CHARS} with an ellipsis. */
    static String capped(String text) {
        return text.length() <= MAX_QUOTED_CHARS ? text : text.substring(0, MAX_QUOTED_CHARS - 1) + "…";
    }

    static String drainJobId(String token) {
        return "drain:" + token;
    }

    /**
     * Parks {@code message} behind its key, in steps over two slots (docs/lock-keys.md says which fault leaves
     * what): (1) a drain token due now, in the queue; (2) park.lua, in the key's slot, which makes this token the
     * key's drainer when it has none; (3) when another token drains the key, this one is cancelled. A crash after
     * (1) leaves a token that finds nothing parked and ends after a drainer lease; after (2) the token drains.
     */
    private Outcome park(DistributedLock lock, M message, String key, String id, String carrierId) {
        Instant now = Instant.now();
        DeferredMessage dm =
                DeferredMessage.first(name, key, id, deferrals.mapper().valueToTree(message), now);
        String payload;
        try {
            payload = deferrals.mapper().writeValueAsString(dm);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode message " + message + " of handler '" + name + "'", e);
        }
        int bytes = payload.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > deferrals.queue().maxPayloadBytes()) {
            throw new IllegalArgumentException("payload of " + bytes + " bytes is over the limit of "
                    + deferrals.queue().maxPayloadBytes() + " bytes (maxPayloadBytes) for queue '" + deferrals.name()
                    + "': a message of handler '" + name + "' parked behind lock '" + key + "'");
        }
        String itemId = id == null ? UUID.randomUUID().toString() : Names.pair(name, id);
        String token = UUID.randomUUID().toString();
        DeferredMessage drain = DeferredMessage.drain(name, key, token, now);
        long lease = deferrals.drainerLeaseMillis();
        DelayQueue<DeferredMessage> queue = deferrals.queue();
        queue.enqueue(drainJobId(token), drain, Duration.ZERO);
        Parking parking = parking(lock);
        Parking.ParkReply r = parking.park(itemId, payload, deferrals.maxParked(), token, lease);
        deferrals.rememberParked(name, key, parking); // the orphan sweep's safety net (OrphanSweep)
        if (!r.drainer()) {
            cancelQuietly(drainJobId(token));
        } else if (System.currentTimeMillis() - now.toEpochMilli() >= lease / 2) {
            // a slow park (a frozen parker): its token may have looked for lease and ended, and park.lua just
            // made it the drainer. A second job for the same token drains the key; two jobs of one token take
            // the lock in turn and read the head with it held, so nothing runs twice
            queue.enqueue(
                    drainJobId(token) + ":late", DeferredMessage.drain(name, key, token, Instant.now()), Duration.ZERO);
        }
        if (r.parked() == Parking.Parked.FULL) {
            return overflow(dm, itemId, key, carrierId);
        }
        if (r.parked() == Parking.Parked.ALREADY) {
            log.debug("message {} of handler '{}' was already parked behind lock '{}'", id, name, key);
        }
        LockRunner.safe(() -> listener.onDeferred(key, 1, Duration.ZERO));
        return Outcome.DEFERRED;
    }

    /**
     * A message over {@link Deferrals#maxParked()}: thrown, or stored as a dead-letter carrier. When the carrier's
     * id is that of the carrier running now ({@code carrierId}: a dead letter requeued while its key is still
     * full), the enqueue writes nothing, so this throws instead and the running carrier is nacked and stays.
     */
    private Outcome overflow(DeferredMessage dm, String itemId, String key, String carrierId) {
        if (deferrals.parkedOverflow() == ParkedOverflow.THROW) {
            throw new ParkedLimitException(key, deferrals.maxParked(), deferrals.name());
        }
        String reason = DeadLetterReason.PARKED_LIMIT.describe(": lock '" + key + "' already had "
                + deferrals.maxParked() + " messages parked (maxParked " + deferrals.maxParked() + ")");
        String deadId = deadJobId(itemId);
        EnqueueResult r = deferrals.queue().enqueue(deadId, dm.dead(reason), Duration.ZERO);
        if (r.duplicate() && deadId.equals(carrierId)) {
            throw new ParkedLimitException(key, deferrals.maxParked(), deferrals.name());
        }
        return Outcome.DEFERRED;
    }

    private static String deadJobId(String itemId) {
        return "dead:" + itemId;
    }

    private void cancelQuietly(String jobId) {
        try {
            deferrals.queue().cancel(jobId);
        } catch (RuntimeException e) {
            log.debug("cannot cancel drain token {}; it finds another drainer and ends", jobId, e);
        }
    }

    /**
     * Runs a drain token: the parked messages of its key, one at a time under the key's lock, in their order,
     * while it is the key's drainer. It waits for the key as the lock's waiters do (queued, woken by the
     * release) for up to {@link Deferrals#drainWait()}, then gives its thread back and comes due again. Between
     * two messages it keeps the key, with a new fencing token for each, while no other process is queued for it
     * (drain-next.lua); otherwise it releases the key to the queue and waits for it again.
     */
    void runDrain(Job<DeferredMessage> job) throws Exception {
        DeferredMessage t = job.payload();
        String key = t.key();
        String token = t.token();
        DelayQueue<DeferredMessage> queue = deferrals.queue();
        long lease = deferrals.drainerLeaseMillis();
        DistributedLock lock = guard(key);
        Parking parking = parking(lock);
        deferrals.rememberParked(name, key, parking); // the orphan sweep's safety net (OrphanSweep)
        int n = 0;
        while (n < DRAIN_BATCH) {
            // before the first wait, look without the lock; after a run, the look with the lock held says it
            if (n == 0) {
                Parking.DrainStep first = parking.drainStep(token, lease);
                if (first == Parking.DrainStep.EMPTY_NO_DRAINER || first == Parking.DrainStep.OTHER_DRAINER) {
                    // this token's park.lua may not have run yet: it can still make this token the drainer
                    // (when the other drainer ends first), so the token stays until its parker cancels it
                    awaitParking(job, t, lease);
                    return;
                }
                if (!first.hasHead()) {
                    return;
                }
            }
            LockAttempt attempt = lock.attempt(deferrals.drainWait());
            if (!attempt.acquired()) {
                queue.reschedule(job, Duration.ZERO, null);
                LockRunner.safe(() -> listener.onDeferred(key, 2, Duration.ZERO));
                return;
            }
            Parking.DrainStep head;
            try {
                head = parking.drainStep(token, lease); // with the lock held: the head to run
            } catch (RuntimeException e) {
                LockRunner.unlockAfterFailure(lock, key, lock.fencingToken(), e, listener);
                throw e;
            }
            if (!head.hasHead()) {
                lock.unlock(); // a look with the lock held that found nothing to run: not an acquisition to meter
                return;
            }
            // metered once per parked message run, as a first-try acquisition is: acquired = processed + failed
            LockRunner.safe(() -> listener.onAcquired(key, attempt.waited()));
            Boolean headDone = null; // whether the head's done marker exists, when already read with the key held
            while (true) {
                n++;
                After after = runParked(lock, key, parking, head, headDone, job, token, n < DRAIN_BATCH);
                if (after.stop()) {
                    return;
                }
                if (!after.held()) {
                    if (after.next() != null && !after.next().hasHead()) {
                        return; // the step after the run found nothing more to run, or another drainer
                    }
                    break; // released: wait for the key again, then read the head with it held
                }
                head = after.next(); // still held, with the next head's own fencing token
                headDone = after.nextDone();
                LockRunner.safe(() -> listener.onAcquired(key, Duration.ZERO));
            }
        }
        queue.reschedule(job, Duration.ZERO, null); // bounded work per delivery: other keys' tokens get the thread
    }

    /**
     * What the run of a parked head left: the drain stops ({@link #STOP}: the head failed and the token waits
     * its backoff); or the key was released, {@code next} being what the step after the run read (null when
     * there was none); or the key is still held ({@code held}) for {@code next}, the next head, with {@code
     * nextDone} whether its done marker exists when that was read with the key held (else null).
     */
    private record After(boolean stop, boolean held, Parking.DrainStep next, Boolean nextDone) {
        static final After STOP = new After(true, false, null, null);
        static final After RELEASED = new After(false, false, null, null);
    }

    /**
     * A drain token that is not its key's drainer at its first look (nothing parked and no drainer, or another
     * token drains the key) may have run before its parker's park.lua (the token is enqueued first), and that
     * park.lua can still make it the drainer: when the other drainer finished the key in between, a token that
     * ended here would leave the key's parked messages with a drainer that nobody runs (the stall the demo met
     * with a RabbitMQ source). So it looks again after a delay growing with its age (10 ms to 1 s) until its
     * parker cancels it (park.lua named another drainer), it becomes the drainer, or it is a drainer lease old:
     * a parker that died before parking left nothing to drain, and its caller, which got no answer, still has
     * the message.
     */
    private void awaitParking(Job<DeferredMessage> job, DeferredMessage t, long leaseMillis) {
        long age = Math.max(0, System.currentTimeMillis() - t.firstConflict().toEpochMilli());
        if (age >= leaseMillis) {
            log.debug("drain token {} of lock '{}' found nothing parked for {} ms; it ends", job.id(), t.key(), age);
            return;
        }
        deferrals.queue().reschedule(job, Duration.ofMillis(Math.min(1_000, Math.max(10, age / 2))), null);
    }

    /**
     * Runs the head item with the lock held, and removes it from the key's FIFO before the release; with
     * {@code mayKeep}, the key may stay held for the next head ({@link After}).
     */
    private After runParked(
            DistributedLock lock,
            String key,
            Parking parking,
            Parking.DrainStep head,
            Boolean headDone,
            Job<DeferredMessage> job,
            String token,
            boolean mayKeep)
            throws Exception {
        DeferredMessage dm;
        try {
            dm = deferrals.mapper().readValue(head.payload(), DeferredMessage.class);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            lock.unlock();
            String reason = DeadLetterReason.UNDECODABLE.describe(
                    " as a parked message: " + capped(String.valueOf(e.getMessage())));
            DeferredMessage raw = DeferredMessage.first(
                            name, key, null, TextNode.valueOf(head.payload()), Instant.now())
                    .dead(reason);
            deadLetterParked(parking, head.id(), raw, key);
            return After.RELEASED;
        }
        // a key's parked messages may belong to several handlers: each runs with its own
        ConflictAwareHandler<?> owner = dm.handler().equals(name) ? this : deferrals.handler(dm.handler());
        if (owner == null) {
            // a failed run of the head, not of the token: counted, and dead-lettered after maxAttempts, so the
            // key's later messages go on (a token that failed instead would be dead-lettered and jam the key)
            lock.unlock();
            String failure = "no handler named '" + dm.handler() + "' is registered in this process for deferral"
                    + " queue '" + deferrals.name() + "'";
            log.warn("parked message {} of lock '{}': {}", head.id(), key, failure);
            return headFailed(parking, head, dm, key, job, token, failure, null) ? After.RELEASED : After.STOP;
        }
        return owner.runParkedAsOwner(lock, key, parking, head, headDone, dm, job, token, mayKeep);
    }

    /** {@link #runParked} for a parked message of this handler. */
    private After runParkedAsOwner(
            DistributedLock lock,
            String key,
            Parking parking,
            Parking.DrainStep head,
            Boolean headDone,
            DeferredMessage dm,
            Job<DeferredMessage> job,
            String token,
            boolean mayKeep)
            throws Exception {
        M message;
        try {
            message = deferrals.mapper().readerFor(type).readValue(dm.json());
        } catch (JsonProcessingException | IllegalArgumentException e) {
            lock.unlock();
            String reason = DeadLetterReason.UNDECODABLE.describe(
                    " for handler '" + name + "' as " + type + ": " + capped(String.valueOf(e.getMessage())));
            DeferredMessage raw = DeferredMessage.first(
                            name, key, null, TextNode.valueOf(head.payload()), Instant.now())
                    .dead(reason);
            deadLetterParked(parking, head.id(), raw, key);
            return After.RELEASED;
        }
        String id = dm.messageId().orElse(null);
        boolean[] handlerFailed = {false};
        RedisLock keepable = mayKeep && lock instanceof RedisLock r ? r : null;
        Parking.DrainStep[] next = {null};
        boolean[] held = {false};
        Boolean[] afterDone = {null};
        try {
            LockRunner.runHeld(
                    lock,
                    key,
                    () -> {
                        if (id != null && (headDone != null ? headDone : isDone(id))) {
                            LockRunner.safe(() -> listener.onDuplicateSkipped(key, id));
                        } else {
                            try {
                                handler.handle(message, new MessageContext(key, lock.fencingToken()));
                            } catch (Exception | Error e) {
                                handlerFailed[0] = true;
                                throw e;
                            }
                            if (id != null) {
                                afterDone[0] = markDoneAndLook(lock, id, keepable == null ? null : head.after());
                            }
                        }
                        // before the release: the next run sees the next head; and may the key stay held for it?
                        next[0] = parking.next(
                                head.id(),
                                token,
                                deferrals.drainerLeaseMillis(),
                                keepable == null ? null : keepable.holdToken());
                        return null;
                    },
                    listener,
                    ignored -> held[0] =
                            next[0].hasHead() && next[0].fence() > 0 && keepable.continueHold(next[0].fence()));
            boolean sameNext = held[0] && afterDone[0] != null && next[0].id().equals(head.after());
            return new After(false, held[0], next[0], sameNext ? afterDone[0] : null);
        } catch (LockLostException lost) {
            return After.RELEASED; // it ran and was removed; the listener heard of the loss
        } catch (RuntimeException | Error e) {
            if (!handlerFailed[0]) {
                throw e; // Redis failed, not the handler: no attempt spent; the worker retries the token
            }
            return headFailed(parking, head, dm, key, job, token, e.toString(), e) ? After.RELEASED : After.STOP;
        }
    }

    /**
     * Counts a failed run of the head (the lock released): below {@code maxAttempts} the drain token waits the
     * backoff, keeping its key; at it the head goes to the dead letters ({@link DeadLetterReason#HANDLER_FAILED},
     * quoting {@code failure}). Returns whether the drain goes on now.
     */
    private boolean headFailed(
            Parking parking,
            Parking.DrainStep head,
            DeferredMessage dm,
            String key,
            Job<DeferredMessage> job,
            String token,
            String failure,
            Throwable cause) {
        long failed = parking.failed(head.id());
        if (failed >= deferrals.queue().maxAttempts()) {
            String reason = DeadLetterReason.HANDLER_FAILED.describe(": failed on attempt " + failed + " of "
                    + deferrals.queue().maxAttempts() + " under lock '" + key + "': " + capped(failure));
            deadLetterParked(parking, head.id(), dm.dead(reason), key);
            return true;
        }
        Duration delay = deferrals.backoff().delay((int) failed);
        parking.drainStep(token, deferrals.drainerLeaseMillis() + delay.toMillis()); // keep the key through the wait
        deferrals.queue().reschedule(job, delay, null);
        log.debug("parked message of lock '{}' failed attempt {}; next in {}", key, failed, delay, cause);
        return false;
    }

    /**
     * Moves a parked item to the dead letters: first a carrier job in the queue (idempotent by id), then the
     * item leaves the key's FIFO; a crash between the two runs this again for the same head.
     */
    private void deadLetterParked(Parking parking, String itemId, DeferredMessage carrier, String key) {
        deferrals.queue().enqueue(deadJobId(itemId), carrier, Duration.ZERO);
        parking.pop(itemId);
        log.debug("parked message {} of lock '{}' goes to the dead letters: {}", itemId, key, carrier.reason());
    }

    /**
     * Runs a dead-letter carrier: moves it to the dead letters with its reason. A carrier requeued from the dead
     * letters (its last error is its own reason, stored when it moved there) is handled as a new message of its
     * key instead: it runs, or parks behind the key's parked work. A carrier whose earlier delivery failed (its
     * last error is that failure) is still a carrier.
     */
    void runDeadCarrier(Job<DeferredMessage> job) throws Exception {
        DeferredMessage dm = job.payload();
        DelayQueue<DeferredMessage> queue = deferrals.queue();
        if (!job.lastError().equals(Optional.ofNullable(dm.reason()))) {
            if (queue.deadLetter(job, dm.reason())) {
                LockRunner.safe(() -> listener.onDeadLettered(dm.key(), dm.reason()));
            }
            return;
        }
        M message;
        try {
            message = deferrals.mapper().readerFor(type).readValue(dm.json());
        } catch (JsonProcessingException | IllegalArgumentException e) {
            String reason = DeadLetterReason.UNDECODABLE.describe(
                    " for handler '" + name + "' as " + type + ": " + e.getMessage());
            queue.deadLetter(job, reason);
            LockRunner.safe(() -> listener.onDeadLettered(dm.key(), reason));
            return;
        }
        handle(message, dm.messageId().orElse(null), job.id());
    }

    /** Runs a due deferred message: under its lock, or deferred again, or dead-lettered past the limit. */
    void runDeferred(Job<DeferredMessage> job) throws Exception {
        DelayQueue<DeferredMessage> queue = deferrals.queue();
        DeferredMessage dm = job.payload();
        M message;
        try {
            message = deferrals.mapper().readerFor(type).readValue(dm.json());
        } catch (JsonProcessingException | IllegalArgumentException e) {
            String reason = DeadLetterReason.UNDECODABLE.describe(
                    " for handler '" + name + "' as " + type + ": " + e.getMessage());
            queue.deadLetter(job, reason);
            LockRunner.safe(() -> listener.onDeadLettered(dm.key(), reason));
            return;
        }
        String key = dm.key();
        DistributedLock lock = guard(key);
        if (dispatch.acquire(lock, key, OnConflict.DEFER, System.nanoTime())) {
            runLocked(lock, key, message, dm.messageId().orElse(null));
            return;
        }
        if (dm.deferrals() >= deferrals.maxDeferrals()) {
            String reason = DeadLetterReason.CONFLICT_PERSISTED.describe(": still taken after " + dm.deferrals()
                    + " deferrals over " + Duration.between(dm.firstConflict(), Instant.now()));
            if (queue.deadLetter(job, reason)) {
                LockRunner.safe(() -> listener.onDeadLettered(key, reason));
            }
            return;
        }
        DeferredMessage next = dm.deferredAgain();
        Duration delay = deferrals.backoff().delay(next.deferrals());
        if (queue.reschedule(job, delay, next)) {
            LockRunner.safe(() -> listener.onDeferred(key, next.deferrals(), delay));
        } else {
            log.debug("deferred message {} was redelivered elsewhere; not deferring it again", job.id());
        }
    }

    /**
     * Builds a {@link ConflictAwareHandler}. {@code key} and {@code handler} are required; each setting may be
     * set once. Not threadsafe.
     *
     * @param <M> the message type
     */
    public static final class Builder<M> {
        private final String name;
        private final Class<M> type;
        private final TypeReference<M> typeRef;
        private final RedisLocks locks;
        private Function<? super M, String> keyFn;
        private Function<? super M, String> idFn;
        private ContextHandler<? super M> handler;
        private OnConflict onConflict;
        private SleepRetry sleepRetry;
        private Deferrals deferrals;
        private ConflictListener listener;
        private Boolean conflictStats;
        private Integer permits;
        private RateLimit rateLimit;
        private String rateLimiterName;

        private Builder(String name, Class<M> type, TypeReference<M> typeRef, RedisLocks locks) {
            Require.notNull("name", name);
            Names.requireValid(Names.Kind.HANDLER_NAME, name);
            this.name = name;
            this.type = type;
            this.typeRef = typeRef;
            this.locks = Require.notNull("locks", locks);
        }

        /** The lock key of a message, e.g. {@code e -> "order:" + e.orderId()}. Required. */
        public Builder<M> key(Function<? super M, String> fn) {
            keyFn = Require.setOnce("key", keyFn, fn);
            return this;
        }

        /**
         * The message's unique id, used with DEFER to store a deferral once and to skip a message already
         * processed (a redelivery). Optional; without it a crash between "deferral stored" and the caller's
         * commit can run a message twice. An id must be 1 to 400 bytes of UTF-8 of valid Unicode; {@link
         * #handle(Object)} refuses another with an {@code IllegalArgumentException} (docs/names.md).
         */
        public Builder<M> messageId(Function<? super M, String> fn) {
            idFn = Require.setOnce("messageId", idFn, fn);
            return this;
        }

        /** The work to run under the lock. Required: this or {@link #contextHandler(ContextHandler)}. */
        public Builder<M> handler(MessageHandler<? super M> h) {
            Require.notNull("handler", h);
            ContextHandler<M> plain = (m, context) -> h.handle(m);
            handler = Require.setOnce("handler", handler, plain);
            return this;
        }

        /**
         * The work to run under the lock, told the lock key and the fencing token of the hold ({@link
         * MessageContext}). Required: this or {@link #handler(MessageHandler)}.
         */
        public Builder<M> contextHandler(ContextHandler<? super M> h) {
            handler = Require.setOnce("handler", handler, h);
            return this;
        }

        /** The conflict strategy (default {@link OnConflict#THROW}). DEFER needs {@link #deferrals}. */
        public Builder<M> onConflict(OnConflict s) {
            onConflict = Require.setOnce("onConflict", onConflict, s);
            return this;
        }

        /** The SLEEP_RETRY bounds (default {@link SleepRetry#DEFAULT}). */
        public Builder<M> sleepRetry(SleepRetry r) {
            sleepRetry = Require.setOnce("sleepRetry", sleepRetry, r);
            return this;
        }

        /** Where DEFER stores conflicting messages; registers this handler's name there. */
        public Builder<M> deferrals(Deferrals d) {
            deferrals = Require.setOnce("deferrals", deferrals, d);
            return this;
        }

        /** Hears acquired, conflict, retried, deferred, dead-lettered, processed and lost events. */
        public Builder<M> listener(ConflictListener l) {
            listener = Require.setOnce("listener", listener, l);
            return this;
        }

        /**
         * Whether conflicts are counted in Redis for the conflicts view ({@code deferlock conflicts}, the
         * dashboard's Conflicts panel); default true. Counting never fails nor slows conflict handling: counts
         * are kept in memory and sent by a background thread, a few commands per second at most under
         * contention (docs/ops.md, "Conflict stats"). Set false to send nothing.
         *
         * @throws IllegalStateException when already set
         */
        public Builder<M> conflictStats(boolean enabled) {
            conflictStats = Require.setOnce("conflictStats", conflictStats, enabled);
            return this;
        }

        /**
         * Lets up to {@code limit} messages of one key run at once, each holding one of the key's permits ({@link
         * RedisLocks#permits(String, int)}) instead of its lock; the strategy applies when all of them are taken
         * (THROW: {@link io.github.deferlock.lock.PermitConflictException}; SLEEP_RETRY: woken when a permit is returned; DEFER: parked
         * behind the key and run when a permit frees, one parked message at a time). Default 1: the key's lock.
         * With more than 1, messages of a key overlap, so a key's order is kept only among its parked messages;
         * the consumer adapters run a key's messages one at a time unless told {@code anyOrder()}.
         *
         * @throws IllegalArgumentException when {@code limit} is below 1 or over the permits' maximum
         *     (docs/names.md)
         * @throws IllegalStateException when already set
         */
        public Builder<M> permits(int limit) {
            Require.within("permits", limit, 1, DistributedPermits.MAX_LIMIT);
            permits = Require.setOnce("permits", permits, limit);
            return this;
        }

        /**
         * Limits the starts of each key's messages to {@code limit} (a rate limiter per key, {@link
         * RedisLocks#rateLimiter(String, RateLimit)}, named by the key), taken before the key's lock. When the
         * limit is reached the strategy applies: THROW ({@link RateLimitedException}), SLEEP_RETRY (sleeps until
         * the slot the server names), DEFER (parked behind the key, run when the slot opens). A start taken and
         * then refused by the lock is spent.
         *
         * @throws NullPointerException when {@code limit} is null
         * @throws IllegalStateException when a rate limit is already set
         */
        public Builder<M> rateLimit(RateLimit limit) {
            rateLimit = Require.setOnce("rateLimit", rateLimit, limit);
            return this;
        }

        /**
         * Like {@link #rateLimit(RateLimit)}, but one limiter named {@code limiterName} is shared by the
         * messages of every key (and every handler and process that uses the name): "at most 100 calls a second
         * to the payment provider".
         *
         * @throws NullPointerException when an argument is null
         * @throws IllegalStateException when a rate limit is already set
         */
        public Builder<M> rateLimit(String limiterName, RateLimit limit) {
            Require.notNull("limiterName", limiterName);
            locks.rateLimiter(limiterName, Require.notNull("limit", limit)); // checks the name; no Redis call
            rateLimit = Require.setOnce("rateLimit", rateLimit, limit);
            rateLimiterName = limiterName;
            return this;
        }

        /**
         * Builds the handler and, when it has deferrals, registers it there by name.
         *
         * @throws NullPointerException when {@code key} or {@code handler} was not set
         * @throws IllegalStateException when DEFER has no deferrals, or the name is already registered
         */
        public ConflictAwareHandler<M> build() {
            return new ConflictAwareHandler<>(this);
        }
    }
}
