package io.github.deferlock.streams;

import io.github.deferlock.conflict.Outcome;
import java.time.Duration;
import redis.clients.jedis.HostAndPort;

/**
 * A consumer process for kill tests. Args: port, outcome. When {@code handle} returned the given outcome
 * (PROCESSED or DEFERRED) it sets the key {@code reached} to the entry id and blocks that consumer thread
 * before the XACK, so the test can SIGKILL the process at exactly that point.
 */
public final class ConsumerMain {
    private ConsumerMain() {}

    public static void main(String[] args) throws Exception {
        Outcome stopAt = Outcome.valueOf(args[1]);
        Fixture f = new Fixture(new HostAndPort("127.0.0.1", Integer.parseInt(args[0])), Duration.ZERO);
        StreamConsumer.builder(f.redis, "orders", "g", Order.class, f.handler)
                .listener(new StreamListener() {
                    @Override
                    public void onHandled(String entryId, Outcome outcome, Duration took) {
                        if (outcome == stopAt) {
                            f.redis.set("reached", entryId);
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
