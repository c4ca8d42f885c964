package io.github.deferlock.spring;

import io.github.deferlock.conflict.ConflictListener;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.delay.QueueListener;
import io.github.deferlock.lock.LockListener;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One listener over every listener bean of a kind (the metrics binders and the application's own), so the core
 * builders, which take one listener, hear them all.
 */
final class CompositeListeners {

    private CompositeListeners() {}

    static LockListener lock(List<LockListener> all) {
        if (all.isEmpty()) {
            return LockListener.NONE;
        }
        if (all.size() == 1) {
            return all.get(0);
        }
        return new LockListener() {
            @Override
            public void onAcquired(String key, long fencingToken, Duration waited) {
                all.forEach(l -> l.onAcquired(key, fencingToken, waited));
            }

            @Override
            public void onConflict(String key, Optional<Duration> holderTtl) {
                all.forEach(l -> l.onConflict(key, holderTtl));
            }

            @Override
            public void onReleased(String key, Duration held) {
                all.forEach(l -> l.onReleased(key, held));
            }

            @Override
            public void onLost(String key, long fencingToken, Throwable cause) {
                all.forEach(l -> l.onLost(key, fencingToken, cause));
            }
        };
    }

    static ConflictListener conflict(List<ConflictListener> all) {
        if (all.isEmpty()) {
            return new ConflictListener() {};
        }
        if (all.size() == 1) {
            return all.get(0);
        }
        return new ConflictListener() {
            @Override
            public void onAcquired(String key, Duration waited) {
                all.forEach(l -> l.onAcquired(key, waited));
            }

            @Override
            public void onConflict(String key, OnConflict strategy, Optional<Duration> holderTtl) {
                all.forEach(l -> l.onConflict(key, strategy, holderTtl));
            }

            @Override
            public void onRetried(String key, int nextAttempt, Duration delay) {
                all.forEach(l -> l.onRetried(key, nextAttempt, delay));
            }

            @Override
            public void onDeferred(String key, int deferrals, Duration delay) {
                all.forEach(l -> l.onDeferred(key, deferrals, delay));
            }

            @Override
            public void onDeadLettered(String key, String reason) {
                all.forEach(l -> l.onDeadLettered(key, reason));
            }

            @Override
            public void onProcessed(String key, Duration held) {
                all.forEach(l -> l.onProcessed(key, held));
            }

            @Override
            public void onLockLost(String key, long fencingToken) {
                all.forEach(l -> l.onLockLost(key, fencingToken));
            }

            @Override
            public void onDuplicateSkipped(String key, String messageId) {
                all.forEach(l -> l.onDuplicateSkipped(key, messageId));
            }
        };
    }

    static QueueListener queue(List<QueueListener> all) {
        if (all.isEmpty()) {
            return QueueListener.NONE;
        }
        if (all.size() == 1) {
            return all.get(0);
        }
        return new QueueListener() {
            @Override
            public void onEnqueued(String queue, String jobId, Instant dueAt) {
                all.forEach(l -> l.onEnqueued(queue, jobId, dueAt));
            }

            @Override
            public void onClaimed(String queue, String jobId, int attempt) {
                all.forEach(l -> l.onClaimed(queue, jobId, attempt));
            }

            @Override
            public void onHandled(String queue, String jobId, Duration runTime, Duration lateness) {
                all.forEach(l -> l.onHandled(queue, jobId, runTime, lateness));
            }

            @Override
            public void onFailed(String queue, String jobId, int attempt, Throwable error, boolean willRetry) {
                all.forEach(l -> l.onFailed(queue, jobId, attempt, error, willRetry));
            }

            @Override
            public void onDeadLettered(String queue, String jobId, String reason) {
                all.forEach(l -> l.onDeadLettered(queue, jobId, reason));
            }

            @Override
            public void onClaimLost(String queue, String jobId) {
                all.forEach(l -> l.onClaimLost(queue, jobId));
            }

            @Override
            public void onGivenBack(String queue, String jobId) {
                all.forEach(l -> l.onGivenBack(queue, jobId));
            }
        };
    }
}
