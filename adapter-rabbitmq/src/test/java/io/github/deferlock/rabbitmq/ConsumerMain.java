package io.github.deferlock.rabbitmq;

import io.github.deferlock.conflict.Outcome;
import java.time.Duration;
import redis.clients.jedis.HostAndPort;

/**
 * A consumer process for kill tests. Args: redis port, AMQP port, queue, outcome. When {@code handle} returned the
 * given outcome it sets the Redis key {@code reached} and blocks before the {@code basic.ack}, so the test can
 * SIGKILL it at exactly that point.
 */
public final class ConsumerMain {
    private ConsumerMain() {}

    public static void main(String[] args) throws Exception {
        Outcome stopAt = Outcome.valueOf(args[3]);
        Fixture f = new Fixture(new HostAndPort("127.0.0.1", Integer.parseInt(args[0])), Duration.ZERO);
        RabbitConsumer.builder(Fixture.amqp(Integer.parseInt(args[1])), args[2], Order.class, f.handler)
                .concurrency(1)
                .listener(new RabbitListener() {
                    @Override
                    public void onHandled(String messageId, Outcome outcome, Duration took) {
                        if (outcome == stopAt) {
                            f.redis.set("reached", messageId);
                            try {
                                Thread.sleep(Long.MAX_VALUE);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }
                })
                .build()
                .start();
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
