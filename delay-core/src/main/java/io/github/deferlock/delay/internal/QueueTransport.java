package io.github.deferlock.delay.internal;

import io.github.deferlock.delay.DelayQueueException;
import io.github.deferlock.redis.internal.Durations;
import io.github.deferlock.redis.internal.ReplicatedCall;
import io.github.deferlock.redis.internal.Retry;
import io.github.deferlock.redis.internal.Script;
import io.github.deferlock.redis.internal.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * How one queue's script calls reach Redis, over the shared plumbing of redis-support: {@link Retry} on a
 * connection error (or, through the view {@link #once()}, no retry: for the worker, whose settler and
 * dispatcher resend on their own), {@link ReplicatedCall} for pipelines and for {@code WAIT} when the queue waits for replicas
 * (on the same connection as the write), the {@link Topology}'s publish flag, and failures thrown as {@link
 * DelayQueueException} naming the call and the queue. Knows nothing of what the scripts do ({@link
 * QueueScripts} does). Threadsafe.
 */
public final class QueueTransport {
    private static final Logger LOG = LoggerFactory.getLogger(QueueTransport.class);

    /**
     * Where the calls go and how a write is confirmed: what a transport and its view {@link #once()} share.
     *
     * @param replicas the replicas a write must reach, 0 for no {@code WAIT}
     * @param replicaTimeout how long {@code WAIT} waits; zero when {@code replicas} is 0
     */
    private record Target(
            UnifiedJedis redis,
            String queue,
            Topology topology,
            ReplicatedCall replicated,
            int replicas,
            Duration replicaTimeout) {}

    private final Target target;
    private final boolean retry; // false: each call is sent once (the view for the worker)
    private final QueueTransport once;

    /**
     * @param replicas the replicas a write must reach, 0 for no {@code WAIT}
     * @param replicaTimeout how long {@code WAIT} waits; ignored when {@code replicas} is 0
     */
    public QueueTransport(UnifiedJedis redis, String queue, int replicas, Duration replicaTimeout) {
        Topology topology = Topology.of(redis);
        Duration timeout = replicas > 0 ? replicaTimeout : Duration.ZERO;
        this.target =
                new Target(redis, queue, topology, new ReplicatedCall(topology, replicas, timeout), replicas, timeout);
        this.retry = true;
        this.once = new QueueTransport(this);
    }

    /** The view of {@code of} that sends each call once. */
    private QueueTransport(QueueTransport of) {
        this.target = of.target;
        this.retry = false;
        this.once = this;
    }

    /**
     * This transport without {@link Retry}: each call is sent once (a {@code NOSCRIPT} reply is still answered
     * with the script's body, and {@link ReplicatedCall} still resends once after a cluster slot move), and a
     * failure is thrown at once. For callers that are their own retry layer and resend a write under the same
     * replay token (the worker's settler and dispatcher), so that retries do not multiply.
     */
    public QueueTransport once() {
        return once;
    }

    /** The client. */
    public UnifiedJedis redis() {
        return target.redis();
    }

    /** True when writes are followed by {@code WAIT}. */
    public boolean waitsForReplicas() {
        return target.replicas() > 0;
    }

    /**
     * Runs {@code body}, again after a connection error (only for calls that are safe to repeat; not in the
     * view {@link #once()}); a Redis failure is a {@link DelayQueueException} that names {@code op} and the
     * queue.
     */
    public <R> R call(String op, Supplier<R> body) {
        try {
            return retry ? Retry.CONNECTION_ERRORS.call(body) : body.get();
        } catch (JedisException e) {
            throw new DelayQueueException(op + " failed on queue '" + target.queue() + "': " + e.getMessage(), e);
        }
    }

    /** Runs {@code script} as {@link #call}. */
    public Object run(String op, Script script, List<byte[]> keys, List<byte[]> args) {
        return call(op, () -> script.run(target.redis(), keys, args));
    }

    /** Runs {@code script} once per entry of {@code argLists}, one call after another, as one {@link #call}. */
    public List<Object> runEach(String op, Script script, List<List<byte[]>> keyLists, List<List<byte[]>> argLists) {
        return call(op, () -> {
            List<Object> out = new ArrayList<>(argLists.size());
            for (int c = 0; c < argLists.size(); c++) {
                out.add(script.run(target.redis(), keyLists.get(c), argLists.get(c)));
            }
            return out;
        });
    }

    /** Loads {@code script} on the node that serves {@code sampleKey}, so pipelined {@code EVALSHA}s find it. */
    public void preload(String op, Script script, byte[] sampleKey) {
        call(op, () -> {
            script.preload(target.redis(), sampleKey);
            return null;
        });
    }

    /**
     * Runs a write script; when the queue waits for replicas it is pipelined with {@code WAIT} so both use the
     * same connection, and too few acknowledging replicas is a {@link DelayQueueException} (when {@code
     * strict}; else a warning) that says {@code stored}.
     */
    public Object runAndWait(
            String op, Script script, List<byte[]> keys, List<byte[]> args, String stored, boolean strict) {
        if (target.replicas() == 0) {
            return run(op, script, keys, args);
        }
        return call(op, () -> {
            ReplicatedCall.Replies replies = target.replicated().run(script, keys, args);
            if (replies.acked() < target.replicas()) {
                tooFewReplicas(op, replies.acked(), stored, strict);
            }
            return replies.reply();
        });
    }

    /**
     * Runs {@code script} once per entry of {@code argLists}, with the keys of the same index in {@code
     * keyLists}, in one pipeline ({@link ReplicatedCall#runAll}); when the queue waits for replicas one {@code
     * WAIT} follows on the same connection. Returns the replies in order.
     */
    public List<Object> pipeline(
            String op,
            Script script,
            List<List<byte[]>> keyLists,
            List<List<byte[]>> argLists,
            String stored,
            boolean strict) {
        return call(op, () -> {
            ReplicatedCall.Replies replies = target.replicated().runAll(script, keyLists, argLists);
            if (replies.acked() < target.replicas()) {
                tooFewReplicas(op, replies.acked(), stored, strict);
            }
            return replies.replies();
        });
    }

    /** The scripts' publish flag: {@code 1} for SPUBLISH on a Redis 7.0+ cluster, else {@code 0}. */
    public byte[] shardedFlag() {
        return target.topology().publishFlag();
    }

    /** Throws (strict) or logs that too few replicas acknowledged a write that the primary applied. */
    private void tooFewReplicas(String op, long acked, String stored, boolean strict) {
        String message = op + " on queue '" + target.queue() + "' was acknowledged by " + acked + " of "
                + target.replicas() + " replicas within " + Durations.format(target.replicaTimeout()) + "; " + stored
                + " and may be lost if it fails over now";
        if (strict) {
            throw new DelayQueueException(message);
        }
        LOG.warn(message);
    }
}
