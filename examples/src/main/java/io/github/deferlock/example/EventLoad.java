package io.github.deferlock.example;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The example's own traffic: {@code example.events-per-second} events from four threads, a share {@code
 * example.hot-share} of them for order 1, so its lock is often taken and events get deferred. Every tenth event
 * is a payment, which schedules an email. Stops with the application.
 */
@Component
public class EventLoad implements SmartLifecycle {

    private final Ledger ledger;
    private final int perSecond;
    private final double hotShare;
    private volatile ExecutorService threads;

    /** The load, applied through {@code ledger}. */
    public EventLoad(
            Ledger ledger,
            @Value("${example.events-per-second:20}") int perSecond,
            @Value("${example.hot-share:0.5}") double hotShare) {
        this.ledger = ledger;
        this.perSecond = perSecond;
        this.hotShare = hotShare;
    }

    @Override
    public void start() {
        threads = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            threads.submit(this::produce);
        }
    }

    private void produce() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long pause = Math.max(1, 4000L / Math.max(1, perSecond));
        int n = 0;
        while (!Thread.currentThread().isInterrupted()) {
            long order = random.nextDouble() < hotShare ? 1 : 2 + random.nextInt(20);
            try {
                ledger.apply(new OrderEvent(order, ++n % 10 == 0 ? "paid" : "item-added"));
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // Redis unreachable for a moment: try the next event
            }
        }
    }

    @Override
    public void stop() {
        ExecutorService t = threads;
        if (t != null) {
            t.shutdownNow();
        }
        threads = null;
    }

    @Override
    public boolean isRunning() {
        return threads != null;
    }
}
