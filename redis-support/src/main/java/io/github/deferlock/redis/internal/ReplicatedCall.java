package io.github.deferlock.redis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * Script calls on one pipeline, followed (when replicas are asked for) by {@code WAIT} on the same
 * connection, so the {@code WAIT} counts the replicas that have these writes. Calls that meet {@code
 * NOSCRIPT} are sent again by body. A cluster pipeline follows the client's slot map but never refreshes it
 * (no {@code MOVED} handling, no retry), so after a connection error or a {@code MOVED} the slot map is
 * refreshed and the calls not yet answered are sent once more (on a slot-routing cluster client); a second
 * failure is thrown as a {@link JedisConnectionException}, which {@link Retry} may retry. Only for scripts that
 * are safe to send twice. Immutable and threadsafe.
 */
public final class ReplicatedCall {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedCall.class);

    private final Topology topology;
    private final int replicas;
    private final Duration timeout;

    /**
     * @param replicas how many replicas {@code WAIT} asks for; 0 sends no {@code WAIT}
     * @param timeout how long {@code WAIT} waits (at least 1 ms is sent: 0 would wait forever)
     */
    public ReplicatedCall(Topology topology, int replicas, Duration timeout) {
        this.topology = Require.notNull("topology", topology);
        this.replicas = Require.atLeast("replicas", replicas, 0);
        this.timeout = Require.notNull("timeout", timeout);
    }

    /**
     * What the calls answered, in order, and how many replicas acknowledged them: the least count any {@code
     * WAIT} reported, or {@link Long#MAX_VALUE} when no {@code WAIT} was sent.
     */
    public record Replies(List<Object> replies, long acked) {
        /** The only reply of a single call. */
        public Object reply() {
            return replies.get(0);
        }
    }

    /** How many replicas {@code WAIT} asks for (0: none). */
    public int replicas() {
        return replicas;
    }

    /** One call; see {@link #runAll}. */
    public Replies run(Script script, List<byte[]> keys, List<byte[]> args) {
        return runAll(script, List.of(keys), List.of(args));
    }

    /**
     * Runs {@code script} once per entry of {@code argLists}, with the keys of the same index, on one
     * pipeline; the {@code WAIT} names the first call's first key, so every call must go to that key's node.
     *
     * @throws JedisConnectionException when the pipeline failed twice (or once, off a slot-routing cluster)
     * @throws JedisDataException a script's error reply
     */
    public Replies runAll(Script script, List<List<byte[]>> keyLists, List<List<byte[]>> argLists) {
        Object[] replies = new Object[argLists.size()];
        boolean[] answered = new boolean[argLists.size()];
        boolean bySha = true;
        long acked = Long.MAX_VALUE;
        int failures = 0;
        while (true) {
            List<Integer> todo = new ArrayList<>();
            for (int c = 0; c < answered.length; c++) {
                if (!answered[c]) {
                    todo.add(c);
                }
            }
            if (todo.isEmpty()) {
                return new Replies(Arrays.asList(replies), acked);
            }
            try {
                Round round = send(script, keyLists, argLists, todo, bySha);
                for (int k = 0; k < todo.size(); k++) {
                    Object reply = round.replies[k];
                    if (reply != NO_SCRIPT) {
                        replies[todo.get(k)] = reply;
                        answered[todo.get(k)] = true;
                    }
                }
                acked = Math.min(acked, round.acked);
                bySha = false; // what is left met NOSCRIPT (a restart mid-batch): send it by body
            } catch (JedisConnectionException | JedisMovedDataException e) {
                failures++;
                refresh(e);
                if (failures == 2 || !topology.routesBySlot()) {
                    throw e instanceof JedisConnectionException c
                            ? c
                            : new JedisConnectionException("the slot moved: " + e.getMessage(), e);
                }
                LOG.debug("pipeline failed ({}); sending its calls again on the refreshed slot map", e.toString());
            }
        }
    }

    private static final Object NO_SCRIPT = new Object();

    /** One pipeline's answers: a reply per call ({@link #NO_SCRIPT} for a NOSCRIPT) and its WAIT's count. */
    private record Round(Object[] replies, long acked) {}

    private Round send(
            Script script,
            List<List<byte[]>> keyLists,
            List<List<byte[]>> argLists,
            List<Integer> todo,
            boolean bySha) {
        List<Response<Object>> responses = new ArrayList<>(todo.size());
        Response<Long> waited = null;
        try (AbstractPipeline pipeline = topology.redis().pipelined()) {
            for (int c : todo) {
                responses.add(
                        bySha
                                ? script.queue(pipeline, keyLists.get(c), argLists.get(c))
                                : script.queueBody(pipeline, keyLists.get(c), argLists.get(c)));
            }
            if (replicas > 0) { // on the same connection as the writes
                waited = pipeline.waitReplicas(
                        keyLists.get(todo.get(0)).get(0), replicas, Math.max(1, timeout.toMillis()));
            }
            pipeline.sync();
        }
        Object[] out = new Object[todo.size()];
        for (int k = 0; k < todo.size(); k++) {
            try {
                out[k] = synced(responses.get(k));
            } catch (JedisMovedDataException e) {
                throw e;
            } catch (JedisDataException e) {
                if (!Script.isNoScript(e)) {
                    throw e;
                }
                out[k] = NO_SCRIPT;
            }
        }
        return new Round(out, waited == null ? Long.MAX_VALUE : synced(waited));
    }

    private void refresh(RuntimeException e) {
        try {
            topology.refreshSlots();
        } catch (RuntimeException refresh) {
            e.addSuppressed(refresh);
        }
    }

    /**
     * The value of a synced pipeline response. A cluster pipeline logs (rather than throws) a failure of a
     * node's connection and leaves that node's responses unset; that is reported as the connection failure.
     */
    static <T> T synced(Response<T> response) {
        try {
            return response.get();
        } catch (IllegalStateException e) {
            throw new JedisConnectionException("the pipeline to the key's master failed", e);
        }
    }
}
