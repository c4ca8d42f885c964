package io.github.deferlock.consumer.internal;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.consumer.ConsumerSettings;
import io.github.deferlock.delay.Backoff;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failure policy, once for every adapter: runs one decoded message through the conflict-aware handler until
 * it is handled, has used its attempts, or the consumer lets go of it.
 *
 * <ul>
 *   <li>An <em>infrastructure</em> failure ({@link Failures#isInfrastructure}) closes the consumer's {@link
 *       OutageGate}, waits it out and tries the same attempt again: it never costs an attempt and never
 *       dead-letters.
 *   <li>A <em>handler</em> failure uses an attempt: after {@code maxAttempts} the result says to dead-letter,
 *       else the message waits {@code retryBackoff.delay(attempt)} on this thread and runs again. Whatever the
 *       user's handler throws is a handler failure, its own Redis errors and {@link Error}s included; a {@link
 *       VirtualMachineError} passes to the caller.
 *   <li><em>Backpressure</em> (an ordered DEFER whose key has its parked FIFO full) is retried in place after
 *       {@code retryBackoff.delay(n)} (n counting those waits): it costs no attempt and never dead-letters.
 * </ul>
 *
 * A broker's delivery count only ever raises the first attempt up to the last one: a message is never
 * dead-lettered without its handler having failed on it.
 *
 * The message stays unacknowledged (uncommitted, pending) all along, so a process that dies meanwhile gets it
 * redelivered. Threadsafe; one instance serves all the handler threads of a consumer. Tests give the handle
 * function (a {@link ConflictAwareHandler#handle} in production), a gate, a sleeper and a clock of their own.
 *
 * @param handler runs one message ({@link ConflictAwareHandler#handle})
 * @param maxAttempts on which failed attempt a message is dead-lettered
 * @param retryBackoff the wait after a failed attempt
 * @param listener hears each message's fate
 * @param source names the queue, topic or stream in logs
 * @param gate the consumer's outage gate
 * @param sleeper waits out backoffs
 * @param nanoTime the clock
 * @param <M> the message type
 */
public record DeliveryRunner<M>(
        Function<M, Outcome> handler,
        int maxAttempts,
        Backoff retryBackoff,
        GuardedListener<?> listener,
        String source,
        OutageGate gate,
        Sleeper sleeper,
        LongSupplier nanoTime) {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryRunner.class);

    /**
     * A runner for the settings' handler and failure policy; {@code source} names the queue/topic/stream in logs.
     */
    public DeliveryRunner(ConsumerSettings<M, ?> settings, GuardedListener<?> listener, String source) {
        this(
                settings.handler()::handle,
                settings.maxAttempts(),
                settings.retryBackoff(),
                listener,
                source,
                new OutageGate(),
                Sleeper.SYSTEM,
                System::nanoTime);
    }

    /** What became of a message. */
    public sealed interface Result {
        /** {@code handle} returned {@code outcome}: acknowledge (commit) the message. */
        record Handled(Outcome outcome) implements Result {}

        /** The handler failed on its last attempt: dead-letter the message with {@code reason}. */
        record DeadLetter(String reason) implements Result {}

        /** The consumer let go (closing, partition revoked, interrupted): leave the message unacknowledged. */
        record Abandoned() implements Result {}
    }

    /**
     * Runs {@code message} starting at attempt {@code firstAttempt} (more than 1 when the broker says it was
     * delivered before), while {@code keepGoing} holds. A {@code firstAttempt} past {@code maxAttempts} runs as
     * the last attempt: broker counts include redeliveries caused by Redis outages, so only a handler failure
     * ever dead-letters a message.
     *
     * @param id the message id for the listener and logs
     */
    public Result run(M message, String id, int firstAttempt, BooleanSupplier keepGoing) {
        // a broker's count also counts redeliveries that Redis outages caused (crash loops, requeues, claims):
        // a message is never dead-lettered before its handler failed on it, so it always runs once more
        int attempt = Math.min(Math.max(1, firstAttempt), maxAttempts);
        int pressed = 0;
        while (true) {
            if (!gate.awaitOpen(keepGoing)) {
                return new Result.Abandoned();
            }
            long t0 = nanoTime.getAsLong();
            Outcome outcome;
            try {
                outcome = handler.apply(message);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                Failures.Kind kind = Failures.classify(e);
                if (kind == Failures.Kind.INFRASTRUCTURE) {
                    Duration pause = gate.failed();
                    LOG.debug("{}: message {} waits {} for Redis: {}", source, id, pause, e.toString());
                    listener.redisUnavailable(id, e);
                    continue;
                }
                gate.succeeded();
                if (kind == Failures.Kind.BACKPRESSURE) {
                    pressed = Math.min(pressed + 1, 64);
                    LOG.debug("{}: message {} waits for room among its key's parked messages: {}", source, id, e);
                    if (!sleeper.sleepUntil(
                            nanoTime.getAsLong() + retryBackoff.delay(pressed).toNanos(), nanoTime, keepGoing)) {
                        return new Result.Abandoned();
                    }
                    continue;
                }
                listener.failed(id, attempt, e);
                if (attempt >= maxAttempts) {
                    return new Result.DeadLetter("failed on attempt " + attempt + " of " + maxAttempts + ": " + e);
                }
                LOG.debug("{}: message {} failed on attempt {}: {}", source, id, attempt, e.toString());
                if (!sleeper.sleepUntil(
                        nanoTime.getAsLong() + retryBackoff.delay(attempt).toNanos(), nanoTime, keepGoing)) {
                    return new Result.Abandoned();
                }
                attempt++;
                continue;
            }
            gate.succeeded();
            listener.handled(id, outcome, Duration.ofNanos(nanoTime.getAsLong() - t0));
            return new Result.Handled(outcome);
        }
    }
}
