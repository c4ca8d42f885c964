package io.github.deferlock.spring;

import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.JobHandler;
import io.github.deferlock.micrometer.JobObservations;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.Environment;
import org.springframework.util.ReflectionUtils;

/**
 * Runs the workers: one per {@code @DelayQueueListener} method, and the deferral worker when this instance has
 * {@code @WithLock(onConflict = DEFER)} methods and {@code deferlock.deferrals.worker} is on. They start in the
 * last lifecycle phase, once every bean is ready, and stop first at shutdown, within {@code
 * spring.lifecycle.timeout-per-shutdown-phase}: no more claims, unstarted jobs given back, running ones finish
 * (or are interrupted and given back at the end of the timeout).
 */
public final class DeferlockWorkers implements SmartLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(DeferlockWorkers.class);

    /** What the workers leave of the shutdown phase for the rest of the context. */
    private static final Duration MARGIN = Duration.ofMillis(500);

    private final BeanFactory beanFactory;
    private final Environment environment;
    private final DelayQueueListenerPostProcessor listeners;
    private final WithLockPostProcessor withLock;
    private final DelayQueues queues;
    private final Deferrals deferrals;
    private final DeferlockProperties properties;
    private final JobObservations observations; // null: no tracing
    private final Object lifecycle = new Object();
    private volatile Map<String, DelayQueueWorker<?>> workers = Map.of(); // replaced whole, read without the lock
    private volatile boolean running;

    DeferlockWorkers(
            BeanFactory beanFactory,
            Environment environment,
            DelayQueueListenerPostProcessor listeners,
            WithLockPostProcessor withLock,
            DelayQueues queues,
            Deferrals deferrals,
            DeferlockProperties properties,
            JobObservations observations) {
        this.beanFactory = beanFactory;
        this.environment = environment;
        this.listeners = listeners;
        this.withLock = withLock;
        this.queues = queues;
        this.deferrals = deferrals;
        this.properties = properties;
        this.observations = observations;
    }

    @Override
    public void start() {
        synchronized (lifecycle) {
            if (!running) {
                startAll();
            }
        }
    }

    private void startAll() {
        Map<String, DelayQueueWorker<?>> started = new LinkedHashMap<>();
        for (ListenerMethod l : listeners.listeners()) {
            String queue =
                    environment.resolveRequiredPlaceholders(l.annotation().queue());
            int concurrency = concurrency(l);
            DelayQueue<?> q = queues.get(queue, l.payloadType());
            String id = queue + " <- " + l.method().getDeclaringClass().getSimpleName() + "."
                    + l.method().getName();
            started.put(id, startWorker(q, l, concurrency));
        }
        if (withLock.interceptor().hasDeferMethods()
                && properties.getDeferrals().isWorker()) {
            started.put(
                    deferrals.queue().name() + " <- @WithLock(DEFER)",
                    DelayQueueWorker.builder(deferrals.queue(), traced(deferrals.queue(), deferrals.jobHandler()))
                            .concurrency(properties.getDeferrals().getConcurrency())
                            .allowEvictionPolicy(properties.getQueue().isAllowEvictionPolicy())
                            .build()
                            .start());
        }
        workers = started;
        running = true;
        LOG.info("deferlock workers started: {}", started.keySet());
    }

    private <T> DelayQueueWorker<T> startWorker(DelayQueue<T> queue, ListenerMethod l, int concurrency) {
        JobHandler<T> handler = job -> invoke(l, job);
        return DelayQueueWorker.builder(queue, traced(queue, handler))
                .concurrency(concurrency)
                .allowEvictionPolicy(properties.getQueue().isAllowEvictionPolicy())
                .build()
                .start();
    }

    private <T> JobHandler<T> traced(DelayQueue<T> queue, JobHandler<T> handler) {
        return observations == null ? handler : observations.handler(queue.name(), handler);
    }

    private void invoke(ListenerMethod l, Job<?> job) throws Exception {
        Object bean = beanFactory.getBean(l.beanName());
        Method m = AopUtils.selectInvocableMethod(l.method(), bean.getClass());
        ReflectionUtils.makeAccessible(m);
        try {
            m.invoke(bean, l.takesJob() ? job : job.payload());
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            throw (Error) cause;
        }
    }

    private int concurrency(ListenerMethod l) {
        String text = environment.resolveRequiredPlaceholders(l.annotation().concurrency());
        try {
            int n = Integer.parseInt(text.trim());
            if (n >= 1 && n <= DelayQueueWorker.MAX_CONCURRENCY) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalStateException(
                "@DelayQueueListener on " + l.method().getDeclaringClass().getName() + "."
                        + l.method().getName() + ": concurrency must be a number from 1 to "
                        + DelayQueueWorker.MAX_CONCURRENCY + ", not '" + text + "'");
    }

    @Override
    public void stop() {
        stopWithin(shutdownTimeout());
    }

    @Override
    public void stop(Runnable callback) {
        Duration timeout = shutdownTimeout();
        // a thread of its own, never the common pool: stopping blocks, and the common pool may have one thread
        // (on 2 cores), which the caller of the context's close may be holding
        Thread stopper = new Thread(
                () -> {
                    try {
                        stopWithin(timeout);
                    } finally {
                        callback.run();
                    }
                },
                "deferlock-workers-stop");
        stopper.setDaemon(true);
        stopper.start();
    }

    private void stopWithin(Duration timeout) {
        synchronized (lifecycle) {
            if (!running) {
                return;
            }
            // each worker closes on a thread of its own (in parallel, so the timeout holds for all of them)
            List<Thread> closing = new ArrayList<>();
            for (DelayQueueWorker<?> w : workers.values()) {
                Thread t = new Thread(() -> w.close(timeout), "deferlock-worker-close");
                t.setDaemon(true);
                t.start();
                closing.add(t);
            }
            for (Thread t : closing) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            running = false;
            LOG.info("deferlock workers stopped: {}", workers.keySet());
            workers = Map.of();
        }
    }

    private Duration shutdownTimeout() {
        Duration phase = environment.getProperty(
                "spring.lifecycle.timeout-per-shutdown-phase", Duration.class, Duration.ofSeconds(30));
        Duration t = phase.minus(MARGIN);
        return t.isNegative() ? Duration.ZERO : t;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The workers by {@code "queue <- method"}, and whether each runs; for health and the endpoint. */
    public Map<String, Boolean> workers() {
        Map<String, Boolean> out = new LinkedHashMap<>();
        workers.forEach((id, w) -> out.put(id, w.isRunning()));
        return out;
    }

    /** The names of the queues that have a worker in this instance. */
    public List<String> workerQueues() {
        return workers.keySet().stream()
                .map(id -> id.substring(0, id.indexOf(" <- ")))
                .toList();
    }
}
