package io.github.deferlock.spring;

import io.github.deferlock.cron.CronSpec;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.ScheduleSpec;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.Environment;
import org.springframework.util.ReflectionUtils;

/**
 * Runs the {@code @RecurringJob} methods: at start, upserts each method's schedule in its queue ({@code
 * DelayQueue<String>}, the payload is the schedule id) and starts one worker per queue, which fires the
 * schedules and calls the method of each job; stops the workers first at shutdown. Bad attributes (a cron
 * expression, zone or rate that does not parse, two methods with one id) stop the start with a message naming the
 * method.
 */
final class RecurringJobs implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(RecurringJobs.class);

    private final BeanFactory beanFactory;
    private final Environment environment;
    private final RecurringJobPostProcessor methods;
    private final DelayQueues queues;
    private final DeferlockProperties properties;
    private final Object lifecycle = new Object();
    private volatile List<DelayQueueWorker<String>> workers = List.of();
    private volatile boolean running;

    RecurringJobs(
            BeanFactory beanFactory,
            Environment environment,
            RecurringJobPostProcessor methods,
            DelayQueues queues,
            DeferlockProperties properties) {
        this.beanFactory = beanFactory;
        this.environment = environment;
        this.methods = methods;
        this.queues = queues;
        this.properties = properties;
    }

    @Override
    public void start() {
        synchronized (lifecycle) {
            if (running) {
                return;
            }
            Map<String, Map<String, RecurringJobPostProcessor.Found>> byQueue = new LinkedHashMap<>();
            for (RecurringJobPostProcessor.Found f : methods.methods()) {
                String queue =
                        environment.resolveRequiredPlaceholders(f.annotation().queue());
                String id = id(f);
                RecurringJobPostProcessor.Found other =
                        byQueue.computeIfAbsent(queue, q -> new HashMap<>()).putIfAbsent(id, f);
                if (other != null) {
                    throw new IllegalStateException("@RecurringJob id '" + id + "' is used by " + name(other) + " and "
                            + name(f) + " in queue '" + queue + "'");
                }
            }
            List<DelayQueueWorker<String>> started = new ArrayList<>();
            byQueue.forEach((queue, jobs) -> {
                DelayQueue<String> q = queues.get(queue, String.class);
                jobs.forEach((id, f) -> q.schedules().upsert(id, spec(f), id));
                started.add(DelayQueueWorker.builder(q, job -> invoke(jobs.get(job.payload()), job.payload()))
                        .allowEvictionPolicy(properties.getQueue().isAllowEvictionPolicy())
                        .build()
                        .start());
                LOG.info("deferlock recurring jobs in queue '{}': {}", queue, jobs.keySet());
            });
            workers = List.copyOf(started);
            running = true;
        }
    }

    private String id(RecurringJobPostProcessor.Found f) {
        String id = environment.resolveRequiredPlaceholders(f.annotation().id());
        return id.isEmpty() ? f.beanName() + "." + f.method().getName() : id;
    }

    private ScheduleSpec spec(RecurringJobPostProcessor.Found f) {
        String cron = environment.resolveRequiredPlaceholders(f.annotation().cron());
        String rate = environment.resolveRequiredPlaceholders(f.annotation().fixedRate());
        String delay = environment.resolveRequiredPlaceholders(f.annotation().fixedDelay());
        try {
            int given = (cron.isEmpty() ? 0 : 1) + (rate.isEmpty() ? 0 : 1) + (delay.isEmpty() ? 0 : 1);
            if (given != 1) {
                throw new IllegalArgumentException("give one of cron, fixedRate or fixedDelay");
            }
            if (!delay.isEmpty()) {
                return ScheduleSpec.fixedDelay(DurationStyle.detectAndParse(delay));
            }
            if (!cron.isEmpty()) {
                return CronSpec.of(
                        cron,
                        environment.resolveRequiredPlaceholders(f.annotation().zone()));
            }
            return ScheduleSpec.fixedRate(DurationStyle.detectAndParse(rate));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("@RecurringJob on " + name(f) + ": " + e.getMessage(), e);
        }
    }

    private void invoke(RecurringJobPostProcessor.Found f, String id) throws Exception {
        if (f == null) {
            // a schedule whose method this application no longer has: the job is left to fail visibly
            throw new IllegalStateException("no @RecurringJob method for schedule '" + id + "' in this application");
        }
        Object bean = beanFactory.getBean(f.beanName());
        Method m = AopUtils.selectInvocableMethod(f.method(), bean.getClass());
        ReflectionUtils.makeAccessible(m);
        try {
            m.invoke(bean);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            throw (Error) cause;
        }
    }

    private static String name(RecurringJobPostProcessor.Found f) {
        return f.method().getDeclaringClass().getName() + "." + f.method().getName();
    }

    @Override
    public void stop() {
        synchronized (lifecycle) {
            Duration timeout = environment.getProperty(
                    "spring.lifecycle.timeout-per-shutdown-phase", Duration.class, Duration.ofSeconds(30));
            for (DelayQueueWorker<String> w : workers) {
                w.close(timeout);
            }
            workers = List.of();
            running = false;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
