package io.github.deferlock.example;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.spring.LockOutcome;
import io.github.deferlock.spring.LockStrategy;
import io.github.deferlock.spring.WithLock;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Service;

/**
 * Applies order events one order at a time: the lock {@code order:<id>} guards each order's state. When another
 * instance (or thread) holds it, the event is deferred and applied later, still under the lock.
 */
@Service
public class Ledger {

    private final Map<Long, AtomicLong> applied = new ConcurrentHashMap<>();
    private final DelayQueue<Email> emails;

    /** A ledger that schedules emails on {@code emails}. */
    public Ledger(DelayQueue<Email> emails) {
        this.emails = emails;
    }

    /** Applies {@code event} under its order's lock; deferred when the lock is taken. */
    @WithLock(key = "'order:' + #event.orderId()", onConflict = LockStrategy.DEFER)
    public LockOutcome<Long> apply(OrderEvent event) throws InterruptedException {
        Thread.sleep(20); // the work done while holding the order's lock
        long n =
                applied.computeIfAbsent(event.orderId(), id -> new AtomicLong()).incrementAndGet();
        if (event.kind().equals("paid")) {
            emails.enqueue(
                    new Email("customer-" + event.orderId() + "@example.com", "Payment received"),
                    Duration.ofSeconds(5));
        }
        return LockOutcome.done(n);
    }

    /** Events applied so far, by order. */
    public Map<Long, Long> applied() {
        Map<Long, Long> out = new TreeMap<>();
        applied.forEach((id, n) -> out.put(id, n.get()));
        return out;
    }
}
