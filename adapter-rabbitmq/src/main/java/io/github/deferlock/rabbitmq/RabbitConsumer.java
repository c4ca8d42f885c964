package io.github.deferlock.rabbitmq;

import com.fasterxml.jackson.core.type.TypeReference;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.consumer.AbstractConsumer;
import io.github.deferlock.consumer.ConsumerBuilder;
import io.github.deferlock.consumer.internal.ConsumerCore;
import io.github.deferlock.consumer.internal.DeliveryRunner;
import io.github.deferlock.consumer.internal.HandlerLanes;
import io.github.deferlock.consumer.internal.PayloadReader;
import io.github.deferlock.redis.internal.Require;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RabbitMQ (AMQP 0-9-1) consumer that hands every message of a queue to a {@link ConflictAwareHandler} and
 * acknowledges it manually ({@code basic.ack}) only once {@code handle} returned: the message was processed,
 * skipped as a duplicate, or — with {@code OnConflict.DEFER} — its deferral is stored in Redis. A consumer that
 * dies before the ack leaves the message unacknowledged, and the broker delivers it again.
 *
 * <pre>{@code
 * RabbitConsumer<OrderEvent> consumer = RabbitConsumer.builder(factory, "order-events", OrderEvent.class, orders)
 *         .concurrency(8)   // handler threads
 *         .prefetch(20)     // unacknowledged messages per handler thread
 *         .orderKey(e -> "order:" + e.orderId())   // one key's messages one at a time, in queue order
 *         .maxAttempts(5)   // handler failures; a Redis outage uses none
 *         .build()
 *         .start();
 * }</pre>
 *
 * <p><b>Threads and prefetch.</b> {@link #start()} opens its own connection from the factory with one consuming
 * channel ({@code basic.qos(concurrency × prefetch)}, at most 65,535, and one consumer), which receives the
 * messages in queue order and hands each to one of {@code concurrency} handler threads (platform or virtual); a
 * second channel publishes dead letters. So {@code concurrency} messages run at once and at most {@code
 * concurrency × prefetch} are unacknowledged at the client.
 *
 * <p><b>Ordering.</b> With an {@link ConsumerBuilder#orderKey orderKey} the messages of one key run one at a time,
 * in the order the queue delivered them, and different keys run in parallel (keys share a handler thread by
 * hash). A message retried after a handler failure waits on its thread, unacknowledged, and holds back the later
 * messages of its key; they wait in the prefetch window, so a key with a long backlog behind a retry can fill the
 * window and pause the other keys until it drains: size {@code prefetch} above a key's usual backlog. The order
 * holds within one consumer: several consumers of one queue split a key's messages between them, and a message
 * the broker redelivers (after a crash or a channel failure) may run after later ones of its key. Without an
 * {@code orderKey} any free handler thread takes the next message.
 *
 * <p><b>Encoding.</b> The body is the message as JSON ({@link RabbitProducer} writes that). A body that does not
 * decode is a poison message: it is published to the dead-letter queue with the reason and acknowledged.
 *
 * <p><b>Failures.</b> When a lock or deferral call cannot reach Redis (unreachable, {@code LOADING}, a failover),
 * the message stays unacknowledged on its handler thread and is tried again once Redis answers; the consumer's
 * other threads pause meanwhile (the wait grows to 5 s). That never costs an attempt and never dead-letters it.
 * When the handler itself throws, the message uses an attempt and runs again on its thread after {@code
 * retryBackoff} (default 100 ms doubling to 5 s), still unacknowledged, so a crash meanwhile gets it redelivered. A
 * failure on attempt {@code maxAttempts} (default 5) publishes it to the dead-letter queue (default {@code
 * <queue>.dead}, headers {@value #REASON_HEADER} and {@value #ATTEMPT_HEADER}, confirmed by the broker) and
 * acknowledges it. A redelivered message starts at the attempt its header {@value #ATTEMPT_HEADER} or a quorum
 * queue's {@code x-delivery-count} says, at most the last one: it always runs once more (those counts also grow
 * with redeliveries that a Redis outage caused), so only a handler failure dead-letters it. A crash between the confirmed copy and the ack leaves two copies; the
 * message id dedups them.
 *
 * <p><b>Broker restarts.</b> The connection uses the client's automatic recovery (the factory's setting must be
 * on, the default): connection, channels, {@code basic.qos} and consumers come back without rebuilding this
 * object. Messages unacknowledged at the time are delivered again.
 *
 * <p>Exactly-once handling across redeliveries needs a {@code messageId} function on the handler.
 *
 * <p>Threadsafe; the builder is not.
 *
 * @param <M> the message type
 */
public final class RabbitConsumer<M> extends AbstractConsumer<RabbitConsumer<M>> {

    private static final Logger LOG = LoggerFactory.getLogger(RabbitConsumer.class);

    /** The header that counts attempts of a dead-lettered message (and of a copy an older version republished). */
    public static final String ATTEMPT_HEADER = "x-deferlock-attempt";
    /** The header of a dead-lettered message that says why. */
    public static final String REASON_HEADER = "x-deferlock-reason";

    private static final AtomicInteger SERIAL = new AtomicInteger();

    private final ConsumerCore<M, RabbitListener> core;
    private final ConnectionFactory factory;
    private final String queue;
    private final int prefetch;
    private final String deadLetterQueue;
    private final boolean declare;
    private final String name;
    private HandlerLanes<Work<M>> handlers;
    private Connection connection;
    private Channel channel;
    /** Publishes dead letters with confirms, one at a time; guarded by {@link #publishLock}. */
    private Channel publisher;

    private final Object publishLock = new Object();
    private String consumerTag;

    private RabbitConsumer(Builder<M> b) {
        super("consumer of queue '" + b.queue + "'");
        this.factory = b.factory;
        this.queue = b.queue;
        this.core = ConsumerCore.of(b.settings(), "queue '" + queue + "'");
        this.prefetch = Require.orDefault(b.prefetch, 10);
        this.deadLetterQueue = Require.orDefault(b.deadLetterQueue, queue + ".dead");
        this.declare = Require.orDefault(b.declare, true);
        this.name = "deferlock-rabbit-" + queue + "-" + SERIAL.incrementAndGet();
    }

    /**
     * Returns a builder for a consumer of {@code queue} through connections from {@code factory} that decodes
     * bodies as {@code type} and hands them to {@code handler}.
     */
    public static <M> Builder<M> builder(
            ConnectionFactory factory, String queue, Class<M> type, ConflictAwareHandler<M> handler) {
        return new Builder<>(factory, queue, type, null, handler);
    }

    /** Like {@link #builder(ConnectionFactory, String, Class, ConflictAwareHandler)} for a generic type. */
    public static <M> Builder<M> builder(
            ConnectionFactory factory, String queue, TypeReference<M> type, ConflictAwareHandler<M> handler) {
        return new Builder<>(factory, queue, null, type, handler);
    }

    /** The dead-letter queue's name. */
    public String deadLetterQueue() {
        return deadLetterQueue;
    }

    /**
     * Connects, declares the queue and the dead-letter queue (durable, unless {@code declareQueues(false)}), and
     * starts the consumer and the {@code concurrency} handler threads.
     *
     * @throws java.io.UncheckedIOException when the broker cannot be reached
     */
    @Override
    protected void doStart() {
        if (!factory.isAutomaticRecoveryEnabled()) {
            LOG.warn(
                    "queue '{}': the ConnectionFactory has automatic recovery off; the consumer will not survive a"
                            + " broker restart",
                    queue);
        }
        handlers = new HandlerLanes<>(name, core.settings(), this::isRunning, this::run, w -> {});
        try {
            connection = factory.newConnection(name);
            publisher = connection.createChannel();
            if (declare) {
                publisher.queueDeclare(queue, true, false, false, null);
                publisher.queueDeclare(deadLetterQueue, true, false, false, null);
            }
            publisher.confirmSelect();
            channel = connection.createChannel();
            channel.basicQos(
                    (int) Math.min(65_535L, (long) prefetch * core.settings().concurrency()));
            consumerTag = channel.basicConsume(queue, false, new Delivery(channel));
        } catch (IOException | TimeoutException e) {
            closeQuietly();
            throw new java.io.UncheckedIOException(
                    "cannot start the consumer of queue '" + queue + "'",
                    e instanceof IOException io ? io : new IOException(e));
        }
    }

    /**
     * Cancels the consumer (no new deliveries start; prefetched ones not yet started are left unacknowledged),
     * waits for running handlers to finish and be acknowledged, then closes the connection: every message not
     * acknowledged goes back to the queue.
     */
    @Override
    protected boolean doClose(long deadlineNanos) {
        synchronized (this) {
            if (consumerTag != null) {
                try {
                    channel.basicCancel(consumerTag);
                } catch (IOException | RuntimeException ex) {
                    LOG.debug("queue '{}': cancel failed: {}", queue, ex.toString());
                }
            }
        }
        boolean finished = handlers == null || handlers.stop(deadlineNanos);
        closeQuietly();
        return finished;
    }

    private synchronized void closeQuietly() {
        if (connection != null) {
            try {
                connection.close(5_000);
            } catch (IOException | RuntimeException e) {
                LOG.debug("queue '{}': closing the connection: {}", queue, e.toString());
            }
        }
        if (handlers != null) {
            handlers.stop(System.nanoTime());
        }
    }

    /** One delivery for a handler thread; {@code message} is null when {@code poison} says why it cannot run. */
    private record Work<M>(
            Channel ch, Envelope envelope, AMQP.BasicProperties props, byte[] body, M message, String poison) {}

    /** Receives the deliveries of the one consuming channel, in queue order, and queues each on its key's lane. */
    private final class Delivery extends DefaultConsumer {
        Delivery(Channel channel) {
            super(channel);
        }

        @Override
        public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
            if (!isRunning()) {
                return; // closing: left unacknowledged, the broker gives it to another consumer
            }
            PayloadReader.Decoded<M> decoded = core.payloads().read(body);
            int lane = 0;
            String poison = decoded.poison();
            if (poison == null) {
                try {
                    lane = core.settings().laneOf(decoded.message());
                } catch (RuntimeException e) { // the message cannot be placed in its key's order
                    poison = "the orderKey function failed: " + e;
                }
            }
            handlers.submit(
                    lane,
                    new Work<>(getChannel(), envelope, props, body, poison == null ? decoded.message() : null, poison));
        }
    }

    private void run(Work<M> w) {
        long tag = w.envelope().getDeliveryTag();
        String id = w.props().getMessageId() != null ? w.props().getMessageId() : Long.toString(tag);
        try {
            int attempt = attemptOf(w.props());
            DeliveryRunner.Result r = w.poison() != null
                    ? new DeliveryRunner.Result.DeadLetter(w.poison())
                    : core.runner().run(w.message(), id, attempt, this::isRunning);
            if (r instanceof DeliveryRunner.Result.Handled) {
                w.ch().basicAck(tag, false);
                core.listener().acked(id);
            } else if (r instanceof DeliveryRunner.Result.DeadLetter d) {
                deadLetter(w, id, attempt, d.reason());
            } // Abandoned: closing; left unacknowledged, the broker delivers it again
        } catch (IOException | RuntimeException e) {
            // the channel or the broker failed while acking or publishing: the message was not acked, so the
            // broker delivers it again
            LOG.warn("queue '{}': delivery {} stays unacknowledged: {}", queue, tag, e.toString());
        }
    }

    private int attemptOf(AMQP.BasicProperties props) {
        Map<String, Object> h = props.getHeaders();
        int attempt = 1;
        if (h != null) {
            if (h.get(ATTEMPT_HEADER) instanceof Number n) {
                attempt = Math.max(attempt, n.intValue());
            }
            if (h.get("x-delivery-count") instanceof Number n) { // quorum queues: earlier deliveries
                attempt = Math.max(attempt, n.intValue() + 1);
            }
        }
        return attempt;
    }

    private void deadLetter(Work<M> w, String id, int attempt, String reason) throws IOException {
        republish(deadLetterQueue, w.props(), w.body(), attempt, reason);
        w.ch().basicAck(w.envelope().getDeliveryTag(), false);
        LOG.warn("queue '{}': message {} dead-lettered to '{}': {}", queue, id, deadLetterQueue, reason);
        core.listener().deadLettered(id, reason);
    }

    /**
     * Publishes a copy to {@code target} through the default exchange on the publishing channel (one copy at a
     * time) and waits for the broker's confirm.
     */
    private void republish(String target, AMQP.BasicProperties props, byte[] body, int attempt, String reason)
            throws IOException {
        Map<String, Object> headers = props.getHeaders() == null ? new HashMap<>() : new HashMap<>(props.getHeaders());
        headers.put(ATTEMPT_HEADER, attempt);
        if (reason != null) {
            headers.put(REASON_HEADER, reason);
        }
        AMQP.BasicProperties copy =
                props.builder().headers(headers).deliveryMode(2).build();
        try {
            synchronized (publishLock) {
                if (!publisher.isOpen()) { // waitForConfirmsOrDie closed it after a nack or a timeout
                    publisher = connection.createChannel();
                    publisher.confirmSelect();
                }
                publisher.basicPublish("", target, copy, body);
                publisher.waitForConfirmsOrDie(30_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for the broker to confirm a copy to '" + target + "'", e);
        } catch (TimeoutException e) {
            throw new IOException("the broker did not confirm a copy to '" + target + "' within 30 s", e);
        }
    }

    @Override
    public String toString() {
        return "RabbitConsumer[" + queue + ", concurrency=" + core.settings().concurrency() + ", prefetch=" + prefetch
                + "]";
    }

    /**
     * Builds a {@link RabbitConsumer}. The settings every adapter has ({@code concurrency} — handler threads —,
     * {@code orderKey}, {@code virtualThreads}, {@code maxAttempts}, {@code retryBackoff}, {@code objectMapper},
     * {@code listener}) are {@link ConsumerBuilder}'s. Each setting may be set once; a second call is an {@link
     * IllegalStateException}. Not threadsafe.
     *
     * @param <M> the message type
     */
    public static final class Builder<M> extends ConsumerBuilder<M, RabbitListener, Builder<M>> {
        private final ConnectionFactory factory;
        private final String queue;
        private Integer prefetch;
        private String deadLetterQueue;
        private Boolean declare;

        private Builder(
                ConnectionFactory factory,
                String queue,
                Class<M> type,
                TypeReference<M> typeRef,
                ConflictAwareHandler<M> handler) {
            super(type, typeRef, handler, new RabbitListener() {});
            this.factory = Require.notNull("factory", factory);
            this.queue = Require.notEmpty("queue", queue);
        }

        /**
         * How many unacknowledged messages per handler thread the broker may send ahead (default 10, at most
         * 65,535): the channel's {@code basic.qos} is {@code concurrency × prefetch}, at most 65,535.
         */
        public Builder<M> prefetch(int n) {
            prefetch = Require.setOnce("prefetch", prefetch, Require.within("prefetch", n, 1, 65_535));
            return this;
        }

        /** The dead-letter queue (default {@code <queue>.dead}). */
        public Builder<M> deadLetterQueue(String name) {
            deadLetterQueue =
                    Require.setOnce("deadLetterQueue", deadLetterQueue, Require.notEmpty("deadLetterQueue", name));
            return this;
        }

        /**
         * Whether {@link #start()} declares the queue and the dead-letter queue (durable, no arguments). Default
         * true; turn it off when the queues are declared elsewhere with other arguments (e.g. quorum queues).
         */
        public Builder<M> declareQueues(boolean on) {
            declare = Require.setOnce("declareQueues", declare, on);
            return this;
        }

        /** Builds the consumer (not started). */
        public RabbitConsumer<M> build() {
            return new RabbitConsumer<>(this);
        }
    }
}
