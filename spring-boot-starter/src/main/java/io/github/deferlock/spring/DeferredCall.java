package io.github.deferlock.spring;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * A {@code @WithLock(onConflict = DEFER)} call as stored in the deferral queue: the lock name and the arguments
 * as JSON. The method is known by the name of the deferral handler that stored it. Not API: public only so
 * Jackson can read it.
 *
 * @param lock the lock name the call needs
 * @param args the arguments, one JSON value each
 */
public record DeferredCall(String lock, List<JsonNode> args) {

    /** Validates the fields. */
    public DeferredCall {
        Objects.requireNonNull(lock, "lock cannot be null");
        args = List.copyOf(args);
    }
}
