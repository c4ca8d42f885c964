package io.github.deferlock.redis.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Handler threads, written once for delay-core's {@code HandlerPool} and the broker adapters: {@code n} platform
 * daemon threads named {@code <base>-handler-<i>}, or a virtual thread per task (Java 21+). Stateless.
 */
public final class HandlerThreads {
    private HandlerThreads() {}

    /**
     * A fixed pool of {@code n} platform threads, or a virtual-thread-per-task executor when {@code virtual}.
     *
     * @throws UnsupportedOperationException when virtual threads are asked for on Java older than 21
     */
    public static ExecutorService create(String base, int n, boolean virtual) {
        if (virtual) {
            return virtualThreadExecutor();
        }
        AtomicInteger serial = new AtomicInteger();
        return Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, base + "-handler-" + serial.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    private static ExecutorService virtualThreadExecutor() {
        try {
            return (ExecutorService) MethodHandles.publicLookup()
                    .findStatic(
                            Executors.class,
                            "newVirtualThreadPerTaskExecutor",
                            MethodType.methodType(ExecutorService.class))
                    .invoke();
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new UnsupportedOperationException("virtual threads need Java 21 or newer", e);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot create a virtual-thread executor", t);
        }
    }
}
