package io.github.deferlock.spring;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.QueueListener;
import io.github.deferlock.delay.RedisQueues;
import io.github.deferlock.micrometer.JobObservations;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The application's delay queues, each built once from its {@code deferlock.queues.<name>.*} properties:
 * inject it to enqueue ({@code queues.get("emails", Email.class).enqueue(email)}). Queues are cheap and hold no
 * connection; their workers share the notice bus of the {@link RedisQueues} they are built through. Threadsafe.
 */
public final class DelayQueues {

    private final RedisQueues owner;
    private final Map<String, DeferlockProperties.Queue> settings;
    private final QueueListener listener;
    private final Consumer<DelayQueue<?>> onBuilt;
    private final JobObservations observations;
    private final Map<String, DelayQueue<?>> queues = new ConcurrentHashMap<>();
    private final Map<String, Class<?>> types = new ConcurrentHashMap<>();

    /**
     * Queues built through {@code owner} configured by {@code settings}, reporting to {@code listener}; {@code onBuilt}
     * sees each queue once, when it is built (for gauges); with {@code observations} (null for none) every job
     * carries the enqueuing thread's trace context in its headers.
     */
    public DelayQueues(
            RedisQueues owner,
            Map<String, DeferlockProperties.Queue> settings,
            QueueListener listener,
            Consumer<DelayQueue<?>> onBuilt,
            JobObservations observations) {
        this.owner = Objects.requireNonNull(owner, "owner cannot be null");
        this.settings = Map.copyOf(settings);
        this.listener = Objects.requireNonNull(listener, "listener cannot be null");
        this.onBuilt = Objects.requireNonNull(onBuilt, "onBuilt cannot be null");
        this.observations = observations;
    }

    /**
     * The queue named {@code name} with {@code type} payloads, built on first use.
     *
     * @throws IllegalStateException when the queue was already asked for with another payload type
     * @throws IllegalArgumentException when the name breaks the queue name rule (docs/names.md)
     */
    @SuppressWarnings("unchecked")
    public <T> DelayQueue<T> get(String name, Class<T> type) {
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(type, "type cannot be null");
        DelayQueue<?> queue = queues.computeIfAbsent(name, n -> {
            DelayQueue<T> built = build(n, type);
            types.put(n, type);
            return built;
        });
        Class<?> known = types.get(name);
        if (known != type) {
            throw new IllegalStateException("queue '" + name + "' is already used with payload type " + known.getName()
                    + ", not " + type.getName());
        }
        return (DelayQueue<T>) queue;
    }

    /** The queues built so far. */
    public List<DelayQueue<?>> all() {
        return List.copyOf(queues.values());
    }

    /** The queue named {@code name} if it was built, or null. */
    public DelayQueue<?> find(String name) {
        return queues.get(name);
    }

    private <T> DelayQueue<T> build(String name, Class<T> type) {
        DelayQueue.Builder<T> b = owner.builder(name, type).listener(listener);
        if (observations != null) {
            b.headers(observations.headers(name));
        }
        DeferlockProperties.Queue s = settings.get(name);
        if (s != null) {
            if (s.getVisibilityTimeout() != null) {
                b.visibilityTimeout(s.getVisibilityTimeout());
            }
            if (s.getMaxAttempts() != null) {
                b.maxAttempts(s.getMaxAttempts());
            }
            if (s.getRetryInitialDelay() != null) {
                Duration max = s.getRetryMaxDelay() != null ? s.getRetryMaxDelay() : Duration.ofMinutes(10);
                b.backoff(
                        Backoff.exponential(s.getRetryInitialDelay(), max, 2.0).withJitter(0.2));
            }
        }
        DelayQueue<T> q = b.build();
        onBuilt.accept(q);
        return q;
    }
}
