package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link LockClock} that moves only when a test moves it. Threadsafe. */
final class FakeClock implements LockClock {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Override
    public long nanoTime() {
        return now.get();
    }

    void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }
}
