/** A ShedLock {@code LockProvider} on deferlock's fenced lock. Only {@code io.github.deferlock.shedlock} is API. */
module io.github.deferlock.shedlock {
    requires transitive io.github.deferlock.lock;
    requires transitive net.javacrumbs.shedlock.core;
    requires org.slf4j;

    exports io.github.deferlock.shedlock;
}
