package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

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
}
