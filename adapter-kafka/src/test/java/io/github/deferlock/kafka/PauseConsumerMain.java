package io.github.deferlock.kafka;

import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.consumer.contract.ContractMessage;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import redis.clients.jedis.HostAndPort;

/**
 * A consumer JVM of {@link KafkaPauseIT}: a {@link TopicConsumer} with {@link PauseFixture}'s handler and a 6 s
 * session, which prints what it does, one line an event, with the wall-clock millis: {@code ASSIGNED <ms>
 * <partitions>}, {@code REVOKED <ms> <lost> <partitions>}, {@code COMMITTED <ms> <partition> <offset>}, {@code
 * HANDLED <ms> <recordId> <outcome> <took ms>}, {@code FAILED <ms> <recordId> <attempt> <error>}, {@code DEAD <ms>
 * <recordId>}. Args: redis port, bootstrap servers, topic, group, consumer name, concurrency, work ms, lock lease
 * ms.
 */
public final class PauseConsumerMain {
    /** The session timeout: a consumer stopped longer than this loses its partitions. */
    static final Duration SESSION = Duration.ofSeconds(6);

    private PauseConsumerMain() {}

    public static void main(String[] args) throws Exception {
        PauseFixture f = new PauseFixture(
                new HostAndPort("127.0.0.1", Integer.parseInt(args[0])),
                args[4],
                Duration.ofMillis(Long.parseLong(args[6])),
                Duration.ofMillis(Long.parseLong(args[7])));
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", args[1]);
        config.put("group.id", args[3]);
        config.put("session.timeout.ms", (int) SESSION.toMillis());
        config.put("heartbeat.interval.ms", 1_000);
        config.put("reconnect.backoff.max.ms", 500);
        TopicConsumer.builder(config, args[2], ContractMessage.class, f.handler)
                .concurrency(Integer.parseInt(args[5]))
                .commitInterval(Duration.ofMillis(100))
                .listener(new TopicListener() {
                    @Override
                    public void onHandled(String id, Outcome outcome, Duration took) {
                        print("HANDLED " + id + " " + outcome + " " + took.toMillis());
                    }

                    @Override
                    public void onFailed(String id, int attempt, Throwable error) {
                        print("FAILED " + id + " " + attempt + " "
                                + error.getClass().getSimpleName());
                    }

                    @Override
                    public void onDeadLettered(String id, String reason) {
                        print("DEAD " + id + " " + reason.replace('\n', ' '));
                    }

                    @Override
                    public void onCommitted(TopicPartition partition, long offset) {
                        print("COMMITTED " + partition.partition() + " " + offset);
                    }

                    @Override
                    public void onAssigned(Collection<TopicPartition> partitions) {
                        print("ASSIGNED " + names(partitions));
                    }

                    @Override
                    public void onRevoked(Collection<TopicPartition> partitions, boolean lost) {
                        print("REVOKED " + lost + " " + names(partitions));
                    }
                })
                .build()
                .start();
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    private static String names(Collection<TopicPartition> partitions) {
        return partitions.stream()
                .map(tp -> Integer.toString(tp.partition()))
                .sorted()
                .collect(Collectors.joining(","));
    }

    private static void print(String event) {
        String[] f = event.split(" ", 2);
        System.out.println(f[0] + " " + System.currentTimeMillis() + " " + f[1]);
    }
}
