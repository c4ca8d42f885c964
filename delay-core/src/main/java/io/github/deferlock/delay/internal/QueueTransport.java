package io.github.deferlock.delay.internal;

import io.github.deferlock.delay.DelayQueueException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * How one queue's script calls reach Redis: retried on a connection error, pipelined, followed by {@code WAIT}
 * when the queue waits for replicas (on the same connection as the write), and failures thrown as {@link
 * DelayQueueException} naming the call and the queue. Knows nothing of what the scripts do ({@link
 * QueueScripts} does). Threadsafe.
 */
public final class QueueTransport {
    private static final Logger LOG = LoggerFactory.getLogger(QueueTransport.class);
    private static final byte[] PLAIN_FOR_NOW = {'0'};

    private final UnifiedJedis redis;
    private final String queue;
    private final int replicas; // 0: no WAIT
    private final Duration replicaTimeout;
    private volatile byte[] shardedFlag; // the scripts' SPUBLISH/PUBLISH choice; null until the server says

    /**
     * @param replicas the replicas a write must reach, 0 for no {@code WAIT}
     * @param replicaTimeout how long {@code WAIT} waits; ignored when {@code replicas} is 0
     */
    public QueueTransport(UnifiedJedis redis, String queue, int replicas, Duration replicaTimeout) {
        this.redis = redis;
        this.queue = queue;
        this.replicas = replicas;
        this.replicaTimeout = replicaTimeout;
    }

    /** The client. */
    public UnifiedJedis redis() {
        return redis;
    }

    /** True when writes are followed by {@code WAIT}. */
    public boolean waitsForReplicas() {
        return replicas > 0;
    }

    /**
     * Runs {@code body}, again after a connection error (only for calls that are safe to repeat); a Redis
     * failure is a {@link DelayQueueException} that names {@code op} and the queue.
     */
    public <R> R call(String op, Supplier<R> body) {
        try {
            return Retry.onConnectionError(body);
        } catch (JedisException e) {
            throw new DelayQueueException(op + " failed on queue '" + queue + "': " + e.getMessage(), e);
        }
    }

    /** Runs {@code script} as {@link #call}. */
    public Object run(String op, Script script, List<byte[]> keys, List<byte[]> args) {
        return call(op, () -> script.run(redis, keys, args));
    }

    /** Runs {@code script} once per entry of {@code argLists}, one call after another, as one {@link #call}. */
    public List<Object> runEach(String op, Script script, List<List<byte[]>> keyLists, List<List<byte[]>> argLists) {
        return call(op, () -> {
            List<Object> out = new ArrayList<>(argLists.size());
            for (int c = 0; c < argLists.size(); c++) {
                out.add(script.run(redis, keyLists.get(c), argLists.get(c)));
            }
            return out;
        });
    }

    /** Loads {@code script} on the node that serves {@code sampleKey}, so pipelined {@code EVALSHA}s find it. */
    public void preload(String op, Script script, byte[] sampleKey) {
        call(op, () -> {
            script.preload(redis, sampleKey);
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
        if (replicas == 0) {
            return run(op, script, keys, args);
        }
        return call(op, () -> {
            Object reply = null;
            long acked = 0;
            for (boolean bySha : new boolean[] {true, false}) {
                Response<Object> response;
                Response<Long> waited;
                try (AbstractPipeline pipeline = redis.pipelined()) {
                    response = bySha ? script.queue(pipeline, keys, args) : script.queueBody(pipeline, keys, args);
                    waited = pipeline.waitReplicas(keys.get(0), replicas, replicaTimeout.toMillis());
                    pipeline.sync();
                } catch (JedisConnectionException | JedisMovedDataException e) {
                    throw afterPipelineFailure(e);
                }
                try {
                    reply = synced(response);
                } catch (JedisNoScriptException e) {
                    continue; // after a restart or failover: EVAL the body with its own WAIT
                } catch (JedisMovedDataException e) {
                    throw afterPipelineFailure(e);
                }
                acked = synced(waited);
                break;
            }
            if (acked < replicas) {
                tooFewReplicas(op, acked, stored, strict);
            }
            return reply;
        });
    }

    /**
     * Runs {@code script} once per entry of {@code argLists}, with the keys of the same index in {@code
     * keyLists}, in one pipeline (re-running by body the calls that met {@code NOSCRIPT}); when the queue waits
     * for replicas one {@code WAIT} follows on the same connection. Returns the replies in order.
     */
    public List<Object> pipeline(
            String op,
            Script script,
            List<List<byte[]>> keyLists,
            List<List<byte[]>> argLists,
            String stored,
            boolean strict) {
        return call(op, () -> {
            Object[] replies = new Object[argLists.size()];
            List<Integer> todo = new ArrayList<>();
            for (int c = 0; c < argLists.size(); c++) {
                todo.add(c);
            }
            boolean bySha = true;
            long acked = Long.MAX_VALUE;
            while (!todo.isEmpty()) {
                List<Response<Object>> responses = new ArrayList<>(todo.size());
                Response<Long> waited = null;
                try (AbstractPipeline pipeline = redis.pipelined()) {
                    for (int c : todo) {
                        responses.add(
                                bySha
                                        ? script.queue(pipeline, keyLists.get(c), argLists.get(c))
                                        : script.queueBody(pipeline, keyLists.get(c), argLists.get(c)));
                    }
                    if (replicas > 0) { // on the same connection as the writes
                        waited = pipeline.waitReplicas(keyLists.get(0).get(0), replicas, replicaTimeout.toMillis());
                    }
                    pipeline.sync();
                } catch (JedisConnectionException | JedisMovedDataException e) {
                    throw afterPipelineFailure(e);
                }
                List<Integer> again = new ArrayList<>();
                for (int k = 0; k < todo.size(); k++) {
                    try {
                        replies[todo.get(k)] = synced(responses.get(k));
                    } catch (JedisNoScriptException e) {
                        again.add(todo.get(k)); // the server restarted mid-batch: EVAL the body
                    } catch (JedisMovedDataException e) {
                        throw afterPipelineFailure(e);
                    }
                }
                if (waited != null) {
                    acked = Math.min(acked, synced(waited));
                }
                todo = again;
                bySha = false;
            }
            if (acked < replicas) {
                tooFewReplicas(op, acked, stored, strict);
            }
            return List.of(replies);
        });
    }

    /** The scripts' publish flag: {@code 1} for SPUBLISH on a Redis 7.0+ cluster, else {@code 0}. */
    public byte[] shardedFlag() {
        byte[] flag = shardedFlag;
        if (flag == null) {
            flag = WakeSubscriber.publishFlag(redis);
            if (flag == null) {
                return PLAIN_FOR_NOW; // the cluster cannot say yet: publish plainly, ask again next time
            }
            shardedFlag = flag;
        }
        return flag;
    }

    /** Throws (strict) or logs that too few replicas acknowledged a write that the primary applied. */
    private void tooFewReplicas(String op, long acked, String stored, boolean strict) {
        String message = op + " on queue '" + queue + "' was acknowledged by " + acked + " of " + replicas
                + " replicas within " + replicaTimeout + "; " + stored + " and may be lost if it fails over now";
        if (strict) {
            throw new DelayQueueException(message);
        }
        LOG.warn(message);
    }

    /**
     * A cluster pipeline follows the client's slot map but never refreshes it, so after a failover a failed
     * pipeline refreshes the map; the failure is returned as a connection error, which {@link #call} retries.
     */
    private JedisConnectionException afterPipelineFailure(JedisException e) {
        if (redis instanceof RedisClusterClient cluster) {
            try {
                cluster.refreshClusterTopology();
            } catch (JedisException refresh) {
                e.addSuppressed(refresh);
            }
        }
        return e instanceof JedisConnectionException c
                ? c
                : new JedisConnectionException("queue '" + queue + "': the slot moved: " + e.getMessage(), e);
    }

    /**
     * The value of a synced pipeline response. A cluster pipeline logs (rather than throws) a failure of a
     * node's connection and leaves that node's responses unset; that is reported as a connection failure.
     */
    private static <R> R synced(Response<R> response) {
        try {
            return response.get();
        } catch (IllegalStateException e) {
            throw new JedisConnectionException("the pipeline to the queue's master failed", e);
        }
    }
}
