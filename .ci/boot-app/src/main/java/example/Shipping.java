package example;

import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.spring.LockOutcome;
import io.github.deferlock.spring.LockStrategy;
import io.github.deferlock.spring.WithLock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.stereotype.Service;

/** One @WithLock(DEFER) method; it records each run and whether the run held the lock. */
@Service
public class Shipping {

    private final RedisLocks locks;
    private final List<String> shipped = new CopyOnWriteArrayList<>();

    public Shipping(RedisLocks locks) {
        this.locks = locks;
    }

    @WithLock(key = "'order:' + #p0", onConflict = LockStrategy.DEFER)
    public LockOutcome<String> ship(long orderId) {
        boolean held = locks.get("order:" + orderId).isHeldByCurrentThread();
        shipped.add(orderId + (held ? " under the lock" : " WITHOUT the lock"));
        return LockOutcome.done("shipped " + orderId);
    }

    public List<String> shipped() {
        return shipped;
    }
}
