package io.github.deferlock.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.Objects;

/**
 * The registries a binder was bound to, as one composite: meters are created on it once, when the listener is
 * built (before any registry is known, since a listener must be given to a builder first), and every registry
 * bound later receives them. Events before the first bind go nowhere.
 */
final class BoundRegistries {

    private final CompositeMeterRegistry composite = new CompositeMeterRegistry();

    MeterRegistry registry() {
        return composite;
    }

    void add(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry cannot be null");
        composite.add(registry);
    }
}
