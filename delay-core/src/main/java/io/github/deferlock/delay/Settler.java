package io.github.deferlock.delay;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Settles a worker's jobs in Redis (ack, nack, give back) and is the worker's one retry layer for them: the
 * calls it makes are sent once each ({@link QueueCalls}: no retry of the queue's own inside), and a settlement
 * that fails is tried {@value #TRIES} times in all, the pauses doubling from 50 ms to 1 s (about 9.5 s in all,
 * so a restart of Redis and its {@code LOADING} phase are ridden out, as the queue's own retry does); then it
 * is given up with one WARN and the job is redelivered after its visibility timeout. An ack, nack or give back
 * is resent under the token of its first try, so its replay record recognises it when the first try's reply
 * was lost. Acks
 * sent in batches by the dispatcher count their failures with the same rule ({@link #tryAgain}) and keep their
 * token while the batch is resent unchanged ({@link #tokenFor}). A settlement Redis refuses (a stale receipt)
 * is one WARN and is not retried.
 *
 * <p>Which failures are worth another try is decided in one place, {@link #retryable(RuntimeException)}.
 * Threadsafe (stateless apart from its collaborators).
 *
 * @param <T> the payload type
 */
final class Settler<T> {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueueWorker.class);
    /** Tries per settlement, the first included: the pauses between them add up to 9.55 s. */
    static final int TRIES = 14;
    /** The pause after the first failure; it doubles after each further one, up to {@link #MAX_PAUSE_MS}. */
    static final long FIRST_PAUSE_MS = 50;
    /** The longest pause between two tries. */
    static final long MAX_PAUSE_MS = 1_000;

    /** How a settlement ended. */
    enum Outcome {
        /** Redis applied it. */
        DONE,
        /** Redis refused it: the receipt is stale. */
        REFUSED,
        /** Every try failed: the job will be redelivered after its visibility timeout. */
        FAILED
    }

    /** Waits between tries; false when the waiting thread was interrupted (then no more tries). */
    @FunctionalInterface
    interface Pause {
        /** The real one: {@link Thread#sleep(long)}, keeping the interrupt. */
        Pause SLEEP = ms -> {
            try {
                Thread.sleep(ms);
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        };

        boolean pause(long millis);
    }

    private final QueueCalls<T> calls;
    private final QueueListener listener;
    private final Pause pause;

    Settler(QueueCalls<T> calls, QueueListener listener, Pause pause) {
        this.calls = calls;
        this.listener = listener;
        this.pause = pause;
    }

    /**
     * The one classification of failures: true when a call that failed this way may succeed if sent again
     * (Redis or the connection to it failed). Other exceptions are bugs: sending again would not help.
     */
    static boolean retryable(RuntimeException e) {
        return e instanceof DelayQueueException || e instanceof JedisException;
    }

    /** True when a settlement that failed {@code failures} times, the last with {@code e}, is tried again. */
    static boolean tryAgain(RuntimeException e, int failures) {
        return failures < TRIES && retryable(e);
    }

    /** The pause before the next try after {@code failures} failures (at least 1). */
    static long pauseMillis(int failures) {
        return failures > 5 ? MAX_PAUSE_MS : Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS << (failures - 1));
    }

    /**
     * Runs {@code action} (true: applied, false: refused), the call named {@code token}, with the retries above;
     * {@code what} names it. Once a reply came the token is {@link QueueCalls#done done} (never resent); a call
     * given up keeps it, as its record must stay its own.
     */
    Outcome settle(Job<T> job, String token, BooleanSupplier action, String what) {
        for (int failures = 0; ; ) {
            try {
                boolean applied = action.getAsBoolean();
                calls.done(token);
                if (applied) {
                    return Outcome.DONE;
                }
                refused(job, what);
                return Outcome.REFUSED;
            } catch (RuntimeException e) {
                failures++;
                if (!tryAgain(e, failures) || !pause.pause(pauseMillis(failures))) {
                    gaveUp(job, what, e);
                    return Outcome.FAILED;
                }
            }
        }
    }

    /** Returns a claimed job to due without spending an attempt, and tells the listener when it went back. */
    Outcome giveBack(Job<T> job, String what) {
        String token = calls.newToken();
        Outcome o = settle(job, token, () -> calls.giveBack(job, token), what);
        if (o == Outcome.DONE) {
            listener.onGivenBack(calls.name(), job.id());
        }
        return o;
    }

    /** Acks one job now; every try is the call named by one token. */
    Outcome ack(Job<T> job) {
        String token = calls.newToken();
        return settle(job, token, () -> calls.ack(job, token), "ack");
    }

    /**
     * Nacks a job with the queue's backoff (or dead-letters it when it used its attempts); every try is the call
     * named by one token.
     */
    Outcome nack(Job<T> job, String error) {
        String token = calls.newToken();
        return settle(job, token, () -> calls.nack(job, error, token), "nack");
    }

    /**
     * Sends pending acks in this thread, in calls of {@link DelayQueue#MAX_ACKS}, each call tried as a
     * settlement is.
     */
    void sendAcks(List<PendingAck<T>> pending) {
        for (int from = 0; from < pending.size(); from += DelayQueue.MAX_ACKS) {
            List<PendingAck<T>> chunk = pending.subList(from, Math.min(pending.size(), from + DelayQueue.MAX_ACKS));
            String token = tokenFor(chunk);
            for (; ; ) {
                try {
                    List<Boolean> results = calls.ackAll(jobsOf(chunk), token);
                    calls.done(token);
                    report(chunk, results);
                    break;
                } catch (RuntimeException e) {
                    int failures = 0;
                    for (PendingAck<T> a : chunk) {
                        failures = Math.max(failures, ++a.failures);
                    }
                    if (!tryAgain(e, failures) || !pause.pause(pauseMillis(failures))) {
                        chunk.forEach(a -> gaveUp(a.job, "ack", e));
                        break;
                    }
                }
            }
        }
    }

    /**
     * The token to send {@code acks} under: the one of their last call when they are exactly that call's acks
     * (a resend of the same call, which its replay record recognises), else a fresh one, which they keep.
     */
    String tokenFor(List<PendingAck<T>> acks) {
        String last = acks.isEmpty() ? null : acks.get(0).token;
        boolean same = last != null;
        for (int i = 0; same && i < acks.size(); i++) {
            same = last.equals(acks.get(i).token) && acks.get(i).sentWith == acks.size();
        }
        if (same) {
            return last;
        }
        String token = calls.newToken();
        for (PendingAck<T> a : acks) {
            a.token = token;
            a.sentWith = acks.size();
        }
        return token;
    }

    /** Reports each ack's result on its own, as {@link #settle} does for one. */
    void report(List<PendingAck<T>> sent, List<Boolean> results) {
        for (int i = 0; i < sent.size(); i++) {
            Job<T> job = sent.get(i).job;
            job.markSettled();
            if (i < results.size() && !results.get(i)) {
                refused(job, "ack");
            }
        }
    }

    static <T> List<Job<T>> jobsOf(List<PendingAck<T>> pending) {
        List<Job<T>> jobs = new ArrayList<>(pending.size());
        for (PendingAck<T> a : pending) {
            jobs.add(a.job);
        }
        return jobs;
    }

    void refused(Job<T> job, String what) {
        LOG.warn(
                "queue '{}': {} of job {} refused: the job changed since this claim (its visibility timeout expired and it"
                        + " will be or was redelivered, or it was cancelled)",
                calls.name(),
                what,
                job.id());
    }

    void gaveUp(Job<T> job, String what, RuntimeException e) {
        LOG.warn(
                "queue '{}': {} of job {} failed, it will be redelivered: {}",
                calls.name(),
                what,
                job.id(),
                e.toString());
    }

    /**
     * A finished job whose ack was not sent yet.
     *
     * @param <T> the payload type
     */
    static final class PendingAck<T> {
        final Job<T> job;
        final long since;
        int failures;
        String token; // the token of the last call that sent this ack alone, or null
        int sentWith; // how many acks that call sent

        PendingAck(Job<T> job, long since) {
            this.job = job;
            this.since = since;
        }
    }
}
