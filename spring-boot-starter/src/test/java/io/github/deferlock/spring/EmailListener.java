package io.github.deferlock.spring;

import io.github.deferlock.delay.Job;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@code @DelayQueueListener} bean: {@code flaky:*} payloads fail twice, {@code poison:*} always, {@code
 * slow:*} wait for {@link #letSlowFinish}; the rest succeed. Records every attempt and every success.
 */
public class EmailListener {

    /** An email. */
    public record Email(String to) {}

    private final List<String> handled = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final CountDownLatch slowStarted = new CountDownLatch(1);
    private final CountDownLatch slowMayFinish = new CountDownLatch(1);

    @DelayQueueListener(queue = "emails", concurrency = "${test.emails.concurrency:2}")
    public void send(Email email) throws Exception {
        int attempt =
                attempts.computeIfAbsent(email.to(), k -> new AtomicInteger()).incrementAndGet();
        if (email.to().startsWith("flaky:") && attempt <= 2) {
            throw new IllegalStateException("flaky failure " + attempt);
        }
        if (email.to().startsWith("poison:")) {
            throw new IllegalStateException("poison");
        }
        if (email.to().startsWith("slow:")) {
            slowStarted.countDown();
            if (!slowMayFinish.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never let finish");
            }
        }
        handled.add(email.to());
    }

    @DelayQueueListener(queue = "audit")
    public void audit(Job<String> job) {
        handled.add("audit:" + job.payload() + "#" + job.attempts());
    }

    public List<String> handled() {
        return handled;
    }

    public int attempts(String to) {
        AtomicInteger n = attempts.get(to);
        return n == null ? 0 : n.get();
    }

    public boolean awaitSlowStarted() throws InterruptedException {
        return slowStarted.await(30, TimeUnit.SECONDS);
    }

    public void letSlowFinish() {
        slowMayFinish.countDown();
    }
}
