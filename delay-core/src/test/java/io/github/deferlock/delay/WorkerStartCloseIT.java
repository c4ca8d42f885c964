package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.testing.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * Regression: starting and closing workers in quick succession on a shared client must hand every pooled
 * connection back clean. Interrupting the wake thread made Jedis stop reading mid-unsubscribe, and the next
 * command on that connection received the stale UNSUBSCRIBE reply instead of its own.
 */
@ExtendWith(RedisExtension.class)
final class WorkerStartCloseIT {

    @Test
    void startAndClose_thirtyTimes_leavesNoStrayReplyOnThePool(RedisClient redis) {
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "cycle", Msg.class).build();
        for (int i = 0; i < 30; i++) {
            DelayQueueWorker.builder(queue, job -> {}).build().start().close();
            for (int k = 0; k < 10; k++) {
                String word = "e" + i + "_" + k;
                assertThat(redis.echo(word)).as("cycle %d, command %d", i, k).isEqualTo(word);
            }
        }
    }

    @Test
    void start_closedNeverStarted_saysItWasClosed(RedisClient redis) {
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "closed", Msg.class).build();
        DelayQueueWorker<Msg> worker =
                DelayQueueWorker.builder(queue, job -> {}).build();
        assertThat(worker.close(java.time.Duration.ZERO)).isTrue();
        assertThatThrownBy(worker::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("worker for queue 'closed' was closed");
    }

    @Test
    void start_twice_saysItWasAlreadyStarted(RedisClient redis) {
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "twice", Msg.class).build();
        try (DelayQueueWorker<Msg> worker =
                DelayQueueWorker.builder(queue, job -> {}).build().start()) {
            assertThatThrownBy(worker::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("worker for queue 'twice' was already started");
        }
    }

    @Test
    void builder_settingsCheckedWithTheSharedWording(RedisClient redis) {
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "rules", Msg.class).build();
        DelayQueueWorker.Builder<Msg> b = DelayQueueWorker.builder(queue, job -> {});
        assertThatThrownBy(() -> b.concurrency(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("concurrency must be within [1, 10000], not 0");
        assertThatThrownBy(() -> b.fallbackPoll(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("fallbackPoll cannot be null");
        assertThatThrownBy(() -> b.maxHandlerTime(java.time.Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxHandlerTime must be positive, not 0 s");
        b.batchSize(5);
        assertThatThrownBy(() -> b.batchSize(6))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("batchSize was already set to 5");
        b.virtualThreads(false);
        assertThatThrownBy(() -> b.virtualThreads(false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("virtualThreads was already set to false");
    }
}
