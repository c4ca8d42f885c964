package io.github.deferlock.kafka;

import io.github.deferlock.conflict.Outcome;
import java.time.Duration;
import redis.clients.jedis.HostAndPort;

/**
 * A consumer process for kill tests. Args: redis port, bootstrap servers, topic, group, outcome. When {@code
 * handle} returned the given outcome it sets the Redis key {@code reached} and blocks before the record counts as
 * done, so its offset cannot be committed and the test can SIGKILL it at exactly that point.
 */
public final class ConsumerMain {
    private ConsumerMain() {}

    public static void main(String[] args) throws Exception {
        Outcome stopAt = Outcome.valueOf(args[4]);
        Fixture f = new Fixture(new HostAndPort("127.0.0.1", Integer.parseInt(args[0])), Duration.ZERO);
        java.util.Map<String, Object> config = new java.util.HashMap<>();
        config.put("bootstrap.servers", args[1]);
        config.put("group.id", args[3]);
        config.put("session.timeout.ms", 3_000);
        config.put("heartbeat.interval.ms", 500);
        TopicConsumer.builder(config, args[2], Order.class, f.handler)
                .concurrency(1)
                .commitInterval(Duration.ofMillis(100))
                .listener(new TopicListener() {
                    @Override
                    public void onHandled(String recordId, Outcome outcome, Duration took) {
                        if (outcome == stopAt) {
                            f.redis.set("reached", recordId);
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
