package io.github.deferlock.inspect;

import java.util.List;
import java.util.Objects;

/**
 * A page of a queue's dead letters, oldest first. Immutable.
 *
 * @param queue the queue name
 * @param total how many dead letters the queue holds
 * @param offset the position of the first item (0 = the oldest dead letter)
 * @param items the dead letters on this page
 */
public record DeadLetterPage(String queue, long total, long offset, List<DeadLetterView> items) {
    /** Validates the components and copies the list. */
    public DeadLetterPage {
        Objects.requireNonNull(queue, "queue cannot be null");
        items = List.copyOf(items);
    }
}
