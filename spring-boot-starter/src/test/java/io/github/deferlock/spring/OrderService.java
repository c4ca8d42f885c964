package io.github.deferlock.spring;

import io.github.deferlock.lock.RedisLocks;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A bean with a {@code @WithLock} method per strategy; each records its runs and whether it held the lock. */
public class OrderService {

    /** One run of a locked method. */
    public record Run(String method, long orderId, String note, boolean heldLock) {}

    private final RedisLocks locks;
    private final List<Run> runs = new CopyOnWriteArrayList<>();

    public OrderService(RedisLocks locks) {
        this.locks = locks;
    }

    public List<Run> runs() {
        return runs;
    }

    private void record(String method, long orderId, String note) {
        runs.add(new Run(method, orderId, note, locks.get("order:" + orderId).isHeldByCurrentThread()));
    }

    @WithLock(key = "'order:' + #orderId")
    public String throwing(long orderId) {
        record("throwing", orderId, null);
        return "done " + orderId;
    }

    @WithLock(key = "'order:' + #orderId", onConflict = LockStrategy.SLEEP_RETRY, maxWait = "10s")
    public String retrying(long orderId) {
        record("retrying", orderId, null);
        return "done " + orderId;
    }

    @WithLock(key = "'order:' + #orderId", onConflict = LockStrategy.DEFER)
    public LockOutcome<String> deferring(long orderId, String note) {
        record("deferring", orderId, note);
        return LockOutcome.done("done " + note);
    }

    @WithLock(key = "'order:' + #orderId", onConflict = LockStrategy.DEFER)
    public void deferringVoid(long orderId, String note) {
        record("deferringVoid", orderId, note);
    }

    @WithLock(key = "'order:' + #orderId")
    public void failing(long orderId) throws java.io.IOException {
        throw new java.io.IOException("checked failure for order " + orderId);
    }
}
