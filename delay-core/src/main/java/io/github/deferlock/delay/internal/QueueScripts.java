package io.github.deferlock.delay.internal;

import io.github.deferlock.redis.internal.Script;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Lua scripts of one queue, one typed method per script: the only code that knows each script's KEYS and
 * ARGV order and the shape of its reply (docs/queue-keys.md). Arguments are already validated; replies are
 * returned raw (envelopes undecoded). Every call goes through the queue's {@link QueueTransport}. Threadsafe.
 */
public final class QueueScripts {
    /** Jobs per enqueue script call in a batch. */
    public static final int ENQUEUE_CHUNK = 200;
    /** Expired in-flight jobs returned per claim call. */
    public static final int RETURN_LIMIT = 100;
    /** The largest claim. */
    public static final int MAX_CLAIM = 1000;
    /** The most acks per script call (alone, or riding along with a claim). */
    public static final int MAX_ACKS = 500;
    /** The most renewals per script call. */
    public static final int MAX_EXTENDS = 1000;
    /**
     * How long a write call's replay record lives unless the next call on its replay slot overwrites it
     * ({@link ReplaySlots}): longer than any resend of the call (our retry, the cluster client's, the worker's
     * settler), so a resent claim, ack, nack, reschedule, cancel or enqueue is recognised as the same call
     * (replay.lua). Memory is bounded by the slots, not by this.
     */
    public static final long REPLAY_TTL_MS = 60_000;

    private static final Script ENQUEUE = QueueLua.load("enqueue");
    private static final Script CLAIM = QueueLua.load("claim");
    private static final Script ACK = QueueLua.load("ack");
    private static final Script NACK = QueueLua.load("nack");
    private static final Script RESCHEDULE = QueueLua.load("reschedule");
    private static final Script EXTEND = QueueLua.load("extend");
    private static final Script CANCEL = QueueLua.load("cancel");
    private static final Script INFO = QueueLua.load("info");
    private static final Script HEAD = QueueLua.load("head");
    private static final Script STATS = QueueLua.load("stats");
    private static final Script DEAD_LIST = QueueLua.load("dead_list");
    private static final Script REQUEUE = QueueLua.load("requeue");
    private static final Script PURGE = QueueLua.load("purge");
    private static final Script PAUSE = QueueLua.load("pause");
    private static final Script PROGRESS = QueueLua.load("progress");
    private static final Script RATE_LIMIT = QueueLua.load("rate_limit");

    /** A replay record's lifetime of 0 ms: the call keeps none (enqueue.lua, ARGV[3]). */
    private static final byte[] NO_REPLAY = num(0);
    /** enqueue.lua's modes of a due time: a delay from the server's TIME, or an absolute epoch ms. */
    private static final byte[] DELAY = utf8("d");

    private static final byte[] AT = utf8("a");

    private final QueueTransport transport;
    private final QueueKeys keys;
    private final ReplaySlots slots;
    private final QueueScripts once;
    private volatile boolean enqueuePreloaded;

    /**
     * @param tokens the names of the replay slots that name each write call (its replay record, {@link
     *     ReplaySlots})
     */
    public QueueScripts(QueueTransport transport, QueueKeys keys, JobIds tokens) {
        this.transport = transport;
        this.keys = keys;
        this.slots = new ReplaySlots(tokens);
        this.once = new QueueScripts(this);
    }

    /** The view of {@code of} over {@link QueueTransport#once()}. */
    private QueueScripts(QueueScripts of) {
        this.transport = of.transport.once();
        this.keys = of.keys;
        this.slots = of.slots;
        this.once = this;
    }

    /**
     * These scripts with each call sent once ({@link QueueTransport#once()}): for the worker, whose settler and
     * dispatcher are its retry layers and resend a write under the same replay token.
     */
    public QueueScripts once() {
        return once;
    }

    /**
     * A token naming one write call for a caller that resends it on its own (the worker): pass it to every try,
     * and to {@link #done(String)} once a reply came (the call is never resent), so its replay slot names the
     * next call and the records stay bounded ({@link ReplaySlots}).
     */
    public String newCall() {
        return slots.lease();
    }

    /** The call named {@code token} got its reply and is not resent: its replay slot names the next call. */
    public void done(String token) {
        slots.done(token);
    }

    /** The replay record's key of the call named {@code token}. */
    private byte[] replayKey(String token) {
        return keys.replay(ReplaySlots.slot(token));
    }

    /** The scripts' replay argument of the call named {@code token} (replay.lua). */
    private static byte[] replayArg(String token) {
        return ReplaySlots.argument(REPLAY_TTL_MS, token);
    }

    /** One receipt to present: a claimed job's id and the receipt of its claim. */
    public record Receipt(String id, String receipt) {}

    /**
     * One job to enqueue.
     *
     * @param id the job id
     * @param callerId true when the caller chose the id (then a resend needs a replay record)
     * @param absolute true: {@code ms} is a due time (epoch ms); false: a delay from the server's now
     * @param ms the due time or the delay, ms
     * @param tail the envelope's payload field (headers and payload)
     * @param replace what to replace in a waiting job of this id: {@link #KEEP} (nothing), {@link #REPLACE_BOTH},
     *     {@link #REPLACE_PAYLOAD} or {@link #REPLACE_DUE}
     */
    public record NewEntry(String id, boolean callerId, boolean absolute, long ms, byte[] tail, char replace) {
        /** A job that never replaces: an existing id is reported, nothing is written. */
        public NewEntry(String id, boolean callerId, boolean absolute, long ms, byte[] tail) {
            this(id, callerId, absolute, ms, tail, KEEP);
        }
    }

    /** {@link NewEntry#replace()}: an existing id is kept (reported as a duplicate). */
    public static final char KEEP = 0;
    /** {@link NewEntry#replace()}: a waiting job of this id gets the new payload and due time. */
    public static final char REPLACE_BOTH = 'b';
    /** {@link NewEntry#replace()}: a waiting job of this id gets the new payload, its due time stays. */
    public static final char REPLACE_PAYLOAD = 'p';
    /** {@link NewEntry#replace()}: a waiting job of this id gets the new due time, its payload stays. */
    public static final char REPLACE_DUE = 't';

    /**
     * What enqueue.lua did with one job.
     *
     * @param nowMs the server time of the call
     * @param status 1 added; 0 the id existed (or came earlier in the call), nothing written; 2 the waiting job
     *     was replaced; 3 not replaced, it is in flight; 4 not replaced, it is dead
     * @param dueMs when the job is due; null when the existing job is in flight or dead
     */
    public record Stored(long nowMs, int status, Long dueMs) {
        /** True when a new job was written. */
        public boolean added() {
            return status == 1;
        }
    }

    /** enqueue.lua with one job; {@code WAIT}s when the queue waits for replicas. */
    public Stored enqueue(NewEntry job) {
        List<byte[]> args = new ArrayList<>(7);
        args.add(keys.channel());
        args.add(transport.shardedFlag());
        // one token for every try of this call: a resend after a lost reply replays the first reply
        String token = slots.lease();
        args.add(job.callerId() ? replayArg(token) : NO_REPLAY); // a generated id recognises its own resend
        addJob(args, job);
        List<byte[]> enqueueKeys = List.of(keys.due(), keys.jobs(), keys.seq(), replayKey(token), keys.stats());
        List<?> reply = (List<?>) transport.runAndWait(
                "enqueue",
                ENQUEUE,
                enqueueKeys,
                args,
                "job '" + job.id() + "' is stored on the primary (enqueueing it again with the same id is idempotent)",
                true);
        slots.done(token);
        return stored(reply, 0);
    }

    /**
     * enqueue.lua over many jobs: {@link #ENQUEUE_CHUNK} per call, all calls in one pipeline, one {@code WAIT}
     * after them when the queue waits for replicas. One result per job, in order.
     */
    public List<Stored> enqueueAll(List<NewEntry> jobs) {
        List<Stored> results = new ArrayList<>(jobs.size());
        if (jobs.isEmpty()) {
            return results;
        }
        List<List<byte[]>> chunkKeys = new ArrayList<>();
        List<List<byte[]>> chunks = new ArrayList<>();
        List<String> leased = new ArrayList<>();
        for (int from = 0; from < jobs.size(); from += ENQUEUE_CHUNK) {
            List<NewEntry> part = jobs.subList(from, Math.min(jobs.size(), from + ENQUEUE_CHUNK));
            boolean callerIds = part.stream().anyMatch(NewEntry::callerId);
            List<byte[]> chunk = new ArrayList<>(3 + 4 * part.size());
            chunk.add(keys.channel());
            chunk.add(transport.shardedFlag());
            // generated ids recognise their own resend: no record, no slot
            String token = callerIds ? slots.lease() : null;
            if (token != null) {
                leased.add(token);
            }
            chunk.add(callerIds ? replayArg(token) : NO_REPLAY);
            byte[] lastDelay = null;
            long lastMs = 0;
            for (NewEntry job : part) {
                if (!job.absolute() && job.replace() == KEEP && lastDelay != null && job.ms() == lastMs) {
                    chunk.add(job.id().getBytes(StandardCharsets.UTF_8));
                    chunk.add(DELAY);
                    chunk.add(lastDelay); // a batch often shares one delay: format it once
                    chunk.add(job.tail());
                } else {
                    addJob(chunk, job);
                    if (!job.absolute() && job.replace() == KEEP) {
                        lastDelay = chunk.get(chunk.size() - 2);
                        lastMs = job.ms();
                    }
                }
            }
            chunks.add(chunk);
            chunkKeys.add(List.of(
                    keys.due(),
                    keys.jobs(),
                    keys.seq(),
                    keys.replay(token == null ? "-" : ReplaySlots.slot(token)),
                    keys.stats()));
        }
        if (!enqueuePreloaded) {
            // once: a later NOSCRIPT re-runs its chunk by body in the pipeline
            transport.preload("enqueueAll", ENQUEUE, keys.due());
            enqueuePreloaded = true;
        }
        List<Object> replies = transport.pipeline(
                "enqueueAll", ENQUEUE, chunkKeys, chunks, "every job of the batch is stored on the primary", true);
        leased.forEach(slots::done);
        for (Object r : replies) {
            List<?> reply = (List<?>) r;
            for (int k = 0; 1 + 2 * k < reply.size(); k++) {
                results.add(stored(reply, k));
            }
        }
        return results;
    }

    private static void addJob(List<byte[]> args, NewEntry job) {
        args.add(job.id().getBytes(StandardCharsets.UTF_8));
        args.add(
                job.replace() == KEEP
                        ? (job.absolute() ? AT : DELAY)
                        : utf8((job.absolute() ? "a" : "d") + job.replace()));
        args.add(num(job.ms()));
        args.add(job.tail());
    }

    private static Stored stored(List<?> reply, int k) {
        int status = ((Long) reply.get(1 + 2 * k)).intValue();
        Long due = (Long) reply.get(2 + 2 * k); // null: the existing job is in flight or dead
        return new Stored((Long) reply.get(0), status, due);
    }

    /**
     * One claimed job, raw.
     *
     * @param id the job id
     * @param envelope its envelope after the claim
     * @param lastError its last error, empty when none
     */
    public record Claimed(String id, byte[] envelope, String lastError) {}

    /**
     * What claim.lua returned.
     *
     * @param nowMicros the server time
     * @param nextWakeMs the earliest due time or visibility deadline left, -1 when none
     * @param acked one result per ack that rode along, in order
     * @param jobs the claimed jobs
     */
    public record ClaimReply(long nowMicros, long nextWakeMs, List<Boolean> acked, List<Claimed> jobs) {}

    /**
     * claim.lua as the call named {@code token} (a resend with the same token within {@link #REPLAY_TTL_MS} is
     * answered with the first call's results): acks {@code acks}, returns expired in-flight jobs, claims up to
     * {@code max} due jobs. A {@code worker}'s claim keeps the queue's liveness mark and starts a hold after a gap
     * in the workers' calls (liveness.lua); every claim keeps a hold.
     */
    public ClaimReply claim(
            int max, long visibilityMs, int maxAttempts, List<Receipt> acks, String token, boolean worker) {
        List<byte[]> claimKeys = List.of(
                keys.due(),
                keys.inflight(),
                keys.jobs(),
                keys.dead(),
                keys.errors(),
                keys.seq(),
                replayKey(token),
                keys.stats(),
                keys.paused(),
                keys.rateLimit(),
                keys.rateState(),
                keys.alive());
        List<byte[]> args = new ArrayList<>(6 + 2 * acks.size());
        args.add(num(max));
        args.add(num(visibilityMs));
        args.add(num(maxAttempts));
        args.add(num(RETURN_LIMIT));
        args.add(replayArg(token));
        args.add(flag(worker));
        addReceipts(args, acks);
        List<?> reply = (List<?>) transport.run("claim", CLAIM, claimKeys, args);
        List<Claimed> jobs = new ArrayList<>((reply.size() - 3) / 3);
        for (int i = 3; i + 2 < reply.size(); i += 3) {
            jobs.add(new Claimed(
                    text((byte[]) reply.get(i)), (byte[]) reply.get(i + 1), text((byte[]) reply.get(i + 2))));
        }
        return new ClaimReply((Long) reply.get(0), (Long) reply.get(1), flags((List<?>) reply.get(2)), jobs);
    }

    /**
     * ack.lua over {@code receipts}: {@link #MAX_ACKS} per call (pipelined when more), {@code WAIT} after them
     * when the queue waits for replicas; with {@code strict} false too few replicas is logged, not thrown. One
     * result per receipt: true when acked, false when stale.
     */
    public List<Boolean> ack(String op, List<Receipt> receipts, String stored, boolean strict) {
        return ack(op, receipts, stored, strict, null);
    }

    /**
     * {@link #ack(String, List, String, boolean)} as the call named {@code token} (null: a fresh one): a resend
     * of the same receipts under the same token within {@link #REPLAY_TTL_MS} is answered with the first call's
     * results, so an ack whose reply was lost is reported acked, not stale. Past {@link #MAX_ACKS} receipts each
     * further call is named {@code token.<n>}.
     */
    public List<Boolean> ack(String op, List<Receipt> receipts, String stored, boolean strict, String token) {
        String call = token == null ? slots.lease() : token;
        List<List<byte[]>> chunkKeys = new ArrayList<>();
        List<List<byte[]>> chunks = new ArrayList<>();
        for (int from = 0; from < receipts.size(); from += MAX_ACKS) {
            List<byte[]> chunk = new ArrayList<>();
            chunk.add(replayArg(call));
            chunk.add(transport.shardedFlag()); // the wake notice when jobs held for a key go back to due
            addReceipts(chunk, receipts.subList(from, Math.min(receipts.size(), from + MAX_ACKS)));
            chunks.add(chunk);
            // past the first chunk, each chunk has a slot of its own: <slot>.<n>
            String slot = ReplaySlots.slot(call) + (from == 0 ? "" : "." + from / MAX_ACKS);
            chunkKeys.add(List.of(keys.jobs(), keys.inflight(), keys.errors(), keys.replay(slot), keys.stats()));
        }
        List<Object> replies = chunks.size() == 1
                ? List.of(transport.runAndWait(op, ACK, chunkKeys.get(0), chunks.get(0), stored, strict))
                : transport.pipeline(op, ACK, chunkKeys, chunks, stored, strict);
        List<Boolean> out = new ArrayList<>(receipts.size());
        for (Object reply : replies) {
            out.addAll(flags((List<?>) reply));
        }
        if (token == null) {
            slots.done(call);
        }
        return out;
    }

    /** What nack.lua did. */
    public enum Settled {
        /** The receipt is stale or the job does not exist. */
        STALE,
        /** Due again after the delay. */
        RETRYING,
        /** Moved to the dead letters. */
        DEAD
    }

    /**
     * nack.lua as the call named {@code token} (null: a fresh one; a resend under the same token within {@link
     * #REPLAY_TTL_MS} is answered with the first call's result): a failed delivery is due again after {@code
     * delayMs}, or dead when it used {@code attemptsLimit} deliveries (0: dead at once, as {@code cause}); {@code
     * error} is stored as its last error.
     */
    public Settled nack(
            String op, Receipt job, String error, long delayMs, int attemptsLimit, DeadCause cause, String token) {
        String call = token == null ? slots.lease() : token;
        List<byte[]> nackKeys = List.of(
                keys.jobs(), keys.inflight(), keys.due(), keys.dead(), keys.errors(), keys.stats(), replayKey(call));
        List<byte[]> args = List.of(
                utf8(job.id()),
                utf8(job.receipt()),
                utf8(error),
                num(delayMs),
                num(attemptsLimit),
                keys.channel(),
                transport.shardedFlag(),
                utf8(cause.code()),
                replayArg(call));
        long r = (Long) transport.run(op, NACK, nackKeys, args);
        if (token == null) {
            slots.done(call);
        }
        return r == 0 ? Settled.STALE : r == 1 ? Settled.RETRYING : Settled.DEAD;
    }

    /**
     * reschedule.lua as the call named {@code token} (null: a fresh one; a resend under the same token within
     * {@link #REPLAY_TTL_MS} is answered with the first call's result): due again after {@code delayMs} without
     * counting the delivery; {@code replacementTail}, when not null, replaces the payload field. True when
     * rescheduled, false when the receipt is stale.
     */
    public boolean reschedule(Receipt job, long delayMs, byte[] replacementTail, String token) {
        String call = token == null ? slots.lease() : token;
        List<byte[]> rKeys = List.of(keys.jobs(), keys.inflight(), keys.due(), replayKey(call));
        List<byte[]> args = List.of(
                utf8(job.id()),
                utf8(job.receipt()),
                num(delayMs),
                keys.channel(),
                num(replacementTail == null ? 0 : 1),
                replacementTail == null ? new byte[0] : replacementTail,
                transport.shardedFlag(),
                replayArg(call));
        boolean r = (Long) transport.run("reschedule", RESCHEDULE, rKeys, args) == 1L;
        if (token == null) {
            slots.done(call);
        }
        return r;
    }

    /**
     * extend.lua: moves the visibility deadline of every given job to now + {@code visibilityMs}, {@link
     * #MAX_EXTENDS} per call. One result per job: the new deadline (epoch ms), or 0 when its receipt is stale. A
     * {@code worker}'s renewal ({@code visibilityMs} the queue's timeout) refreshes the queue's liveness mark.
     */
    public List<Long> extend(long visibilityMs, List<Receipt> receipts, boolean worker) {
        List<byte[]> eKeys = List.of(keys.jobs(), keys.inflight(), keys.alive());
        List<List<byte[]>> chunkKeys = new ArrayList<>();
        List<List<byte[]>> chunks = new ArrayList<>();
        for (int from = 0; from < receipts.size(); from += MAX_EXTENDS) {
            List<byte[]> chunk = new ArrayList<>();
            chunk.add(num(visibilityMs));
            chunk.add(flag(worker));
            addReceipts(chunk, receipts.subList(from, Math.min(receipts.size(), from + MAX_EXTENDS)));
            chunks.add(chunk);
            chunkKeys.add(eKeys);
        }
        List<Object> replies = chunks.size() == 1
                ? List.of(transport.run("extend", EXTEND, eKeys, chunks.get(0)))
                : transport.runEach("extend", EXTEND, chunkKeys, chunks); // rare: over 1000 running jobs
        List<Long> out = new ArrayList<>(receipts.size());
        for (Object reply : replies) {
            for (Object deadline : (List<?>) reply) {
                out.add((Long) deadline);
            }
        }
        return out;
    }

    /** cancel.lua: deletes the job in any state; true when it existed. Idempotent under resend. */
    public boolean cancel(String id) {
        // one token for every try of this call: a resend after a lost reply is told what the first try did
        String call = slots.lease();
        List<byte[]> cKeys =
                List.of(keys.jobs(), keys.due(), keys.inflight(), keys.dead(), keys.errors(), replayKey(call));
        boolean r = (Long) transport.run(
                        "cancel", CANCEL, cKeys, List.of(utf8(id), replayArg(call), transport.shardedFlag()))
                == 1L;
        slots.done(call);
        return r;
    }

    /**
     * One job, raw.
     *
     * @param envelope its envelope
     * @param lastError its last error, empty when none
     * @param score its due time, visibility deadline or time of death (by state), epoch ms; -1 when missing
     * @param progress its progress value ({@code <attempt>|<ms>|<percent>|<note>}, progress.lua), empty when none
     * @param heldForKey true when the job is due but held back for its concurrency key (keylimits.lua)
     */
    public record Info(byte[] envelope, String lastError, long score, String progress, boolean heldForKey) {}

    /** info.lua: one job, or empty when there is none with this id. */
    public Optional<Info> info(String id) {
        List<byte[]> iKeys = List.of(keys.jobs(), keys.due(), keys.inflight(), keys.dead(), keys.errors());
        List<?> reply = (List<?>) transport.run("get", INFO, iKeys, List.of(utf8(id)));
        if (reply.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Info(
                (byte[]) reply.get(0),
                text((byte[]) reply.get(1)),
                (Long) reply.get(2),
                text((byte[]) reply.get(3)),
                reply.size() > 4 && (Long) reply.get(4) == 1L));
    }

    /**
     * progress.lua: stores the progress of the job in flight under {@code job}'s receipt. True when stored, false
     * when the receipt is stale. Idempotent under resend.
     */
    public boolean progress(Receipt job, int percent, String note) {
        List<byte[]> args = List.of(utf8(job.id()), utf8(job.receipt()), num(percent), utf8(note));
        return (Long) transport.run("progress", PROGRESS, List.of(keys.jobs(), keys.errors()), args) == 1L;
    }

    /**
     * The server time and the earliest due time.
     *
     * @param nowMicros the server time
     * @param headMs the earliest due time (epoch ms), -1 when no job waits
     */
    public record Head(long nowMicros, long headMs) {}

    /** head.lua. */
    public Head head() {
        List<?> reply = (List<?>) transport.run("oldestDueAge", HEAD, List.of(keys.due()), List.of());
        return new Head((Long) reply.get(0), (Long) reply.get(1));
    }

    /** stats.lua: the raw reply (see the script) of the queue with these keys. */
    public List<?> stats() {
        return (List<?>) transport.run("stats", STATS, statsKeys(keys), List.of());
    }

    /** The KEYS of stats.lua for the queue with {@code keys}; tools that hold no queue run it with these. */
    public static List<byte[]> statsKeys(QueueKeys keys) {
        return List.of(keys.due(), keys.inflight(), keys.dead(), keys.stats(), keys.paused());
    }

    /**
     * pause.lua: pauses the queue ({@code paused} true) or resumes it, publishing a wake notice on resume. True
     * when the call changed the state.
     */
    public boolean pause(boolean paused) {
        List<byte[]> args = List.of(num(paused ? 1 : 0), keys.channel(), transport.shardedFlag());
        return (Long) transport.run(paused ? "pause" : "resume", PAUSE, List.of(keys.paused()), args) == 1L;
    }

    /**
     * rate_limit.lua: sets the queue's rate limit ({@code "<rate> <interval µs> <burst>"}) or removes it ({@code
     * null}), publishing a wake notice on a change. True when the call changed the limit.
     */
    public boolean rateLimit(String limit) {
        List<byte[]> args = List.of(utf8(limit == null ? "" : limit), keys.channel(), transport.shardedFlag());
        return (Long) transport.run(
                        limit == null ? "removeRateLimit" : "rateLimit",
                        RATE_LIMIT,
                        List.of(keys.rateLimit(), keys.rateState()),
                        args)
                == 1L;
    }

    /** The queue's rate limit as stored ({@code "<rate> <interval µs> <burst>"}), or null (one {@code GET}). */
    public String rateLimit() {
        return transport.call("rateLimit", () -> {
            byte[] v = transport.redis().get(keys.rateLimit());
            return v == null ? null : new String(v, java.nio.charset.StandardCharsets.US_ASCII);
        });
    }

    /** Whether the paused marker exists (not a script: the one plain command). */
    public boolean paused() {
        return transport.call("isPaused", () -> transport.redis().exists(keys.paused()));
    }

    /** stats.lua itself, for {@code DelayQueue.stats(UnifiedJedis, String)}. */
    public static Script statsScript() {
        return STATS;
    }

    /**
     * One dead letter, raw.
     *
     * @param id the job id
     * @param envelope its dead envelope
     * @param lastError the reason it died, empty when none
     * @param diedAtMs when it died, epoch ms
     */
    public record Dead(String id, byte[] envelope, String lastError, long diedAtMs) {}

    /** dead_list.lua: up to {@code limit} dead letters, oldest first. */
    public List<Dead> deadList(int limit) {
        List<byte[]> dKeys = List.of(keys.dead(), keys.jobs(), keys.errors());
        List<?> reply = (List<?>) transport.run("deadLetters", DEAD_LIST, dKeys, List.of(num(limit)));
        List<Dead> out = new ArrayList<>(reply.size() / 4);
        for (int i = 0; i + 3 < reply.size(); i += 4) {
            out.add(new Dead(
                    text((byte[]) reply.get(i)), (byte[]) reply.get(i + 1), text((byte[]) reply.get(i + 2)), (Long)
                            reply.get(i + 3)));
        }
        return out;
    }

    /** requeue.lua for one dead letter: 1 when moved back to due, 0 when there is no dead job {@code id}. */
    public long requeue(String id) {
        return requeue(utf8("id"), utf8(id));
    }

    /** requeue.lua for up to {@code n} of the oldest dead letters: how many were moved back to due. */
    public long requeueOldest(int n) {
        return requeue(utf8("oldest"), num(n));
    }

    private long requeue(byte[] mode, byte[] arg) {
        List<byte[]> rKeys = List.of(keys.dead(), keys.due(), keys.jobs());
        return (Long) transport.run(
                "requeueDead", REQUEUE, rKeys, List.of(keys.channel(), mode, arg, transport.shardedFlag()));
    }

    /** purge.lua: deletes up to {@code n} of the oldest dead letters; how many were deleted. */
    public long purgeOldest(int n) {
        List<byte[]> pKeys = List.of(keys.dead(), keys.jobs(), keys.errors());
        return (Long) transport.run("purgeDead", PURGE, pKeys, List.of(num(n)));
    }

    /** {@code ZCARD} of one of the queue's zsets (not a script: the one plain command). */
    public long size(byte[] zset) {
        return transport.call("size", () -> transport.redis().zcard(zset));
    }

    private static void addReceipts(List<byte[]> args, List<Receipt> receipts) {
        for (Receipt r : receipts) {
            args.add(utf8(r.id()));
            args.add(utf8(r.receipt()));
        }
    }

    private static List<Boolean> flags(List<?> flags) {
        List<Boolean> out = new ArrayList<>(flags.size());
        for (Object f : flags) {
            out.add((Long) f == 1L);
        }
        return out;
    }

    private static String text(byte[] b) {
        return b == null ? "" : new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] flag(boolean on) {
        return num(on ? 1 : 0);
    }

    private static byte[] num(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }
}
