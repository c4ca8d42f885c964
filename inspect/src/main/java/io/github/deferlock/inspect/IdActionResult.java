package io.github.deferlock.inspect;

import java.util.List;

/**
 * What an action on a list of job ids did. Immutable.
 *
 * @param applied the ids the action applied to, in the order given
 * @param notFound the ids it did not apply to: no such job, or the job is not in the state the action needs
 *     (a dead letter for requeue and purge)
 */
public record IdActionResult(List<String> applied, List<String> notFound) {
    /** Copies the lists. */
    public IdActionResult {
        applied = List.copyOf(applied);
        notFound = List.copyOf(notFound);
    }
}
