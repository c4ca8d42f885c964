package io.github.deferlock.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.consumer.contract.ContractMessage;
import io.github.deferlock.consumer.contract.HandlingLog;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.KafkaBroker;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 26: a Kafka consumer SIGSTOPped past its session timeout loses its partitions, and what docs/strategies.md
 * (Kafka, rows "commit" and "rebalance", and "Ordering") promises then holds. Two consumer JVMs ({@link
 * PauseConsumerMain}, 4 handler threads, a 6 s session, heartbeat 1 s) in one group on a topic of 8 partitions;
 * 2,000 records over 50 keys, each carrying its key's sequence number; each run takes 30 ms under its lock, whose
 * lease (3 s, renewed by the watchdog) is shorter than the stop. Consumer A is stopped for 10 s while its handlers
 * run; B takes over its partitions; A is continued. {@link PauseFixture} logs every run's start and judges its
 * write at the end by its fencing token.
 *
 * <p>Asserted: none lost (every record run, and its write taken) or dead-lettered; records run twice, and stale
 * writes, only among the handlings the stop cut (at most one per thread of A); no order inversion among each key's
 * first runs nor among the writes taken; no commit of work done after the stop confirmed to A for the partitions it
 * lost; A hears of the loss within its session timeout of the continue, fails only the cut handlings (their locks
 * ran out: {@code LockLostException}, attempt 1) and rejoins. Measured and printed ({@code kafka pause: ...}), not
 * asserted: how much A starts on the lost partitions before it hears of the loss (docs/guarantees.md, "Not
 * promised").
 */
@ExtendWith(RedisExtension.class)
final class KafkaPauseIT {
    private static final int RECORDS = 2_000;
    private static final int KEYS = 50;
    private static final int PARTITIONS = 8;
    private static final int CONCURRENCY = 4;
    private static final Duration WORK = Duration.ofMillis(30);
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration STOP = Duration.ofSeconds(10);
    private static final Duration STEP = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void consumerStoppedPastItsSession_losesItsPartitions_noneLostOrDeadLettered_eachKeysOrderKept(RedisServer server)
            throws Exception {
        long started = System.nanoTime();
        String topic = "pause";
        String group = topic + "-group";
        try (KafkaBroker broker = KafkaBroker.start();
                PauseFixture f = new PauseFixture(server.hostAndPort(), "worker", WORK, LEASE)) {
            broker.createTopic(topic, PARTITIONS);
            broker.createTopic(topic + ".dead", 1);
            f.deferrals.startWorker(2); // drains work parked behind a held key, in this JVM (never stopped)
            try (JvmProcess a = consumer(server, broker, topic, group, "A");
                    JvmProcess b = consumer(server, broker, topic, group, "B")) {
                a.awaitLine("READY", Duration.ofSeconds(60));
                b.awaitLine("READY", Duration.ofSeconds(60));
                await("both consumers own partitions")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> owned(a).size() + owned(b).size() == PARTITIONS
                                && !owned(a).isEmpty()
                                && !owned(b).isEmpty());
                Map<String, Integer> partitionOf = produce(broker, topic);
                await("both consumers handling")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> runs(f, "A") >= 100 && runs(f, "B") >= 100);
                Set<Integer> ownedByA = owned(a);
                a.pause();
                long stopped = System.currentTimeMillis();
                long handledAtStop = f.redis.hlen(PauseFixture.HANDLED);
                assertThat(handledAtStop).as("still flowing at the stop").isLessThan(RECORDS);
                await("B owns every partition")
                        .atMost(STEP)
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> owned(b).size() == PARTITIONS);
                long takenOver = lastEvent(b, "ASSIGNED");
                // the stop lasts STOP, and at least until the group moved A's partitions
                Thread.sleep(Math.max(0, stopped + STOP.toMillis() - System.currentTimeMillis()));
                long contFrom = System.currentTimeMillis();
                a.resume();
                String lostLine = a.awaitLine(l -> l.startsWith("REVOKED ") && l.split(" ")[2].equals("true"), STEP);
                long lostAt = Long.parseLong(lostLine.split(" ")[1]);
                await("A back in the group with partitions")
                        .atMost(STEP)
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> !owned(a).isEmpty());
                long rejoined = lastEvent(a, "ASSIGNED");
                await("all " + RECORDS + " handled and committed, nothing deferred left")
                        .atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> f.redis.hlen(PauseFixture.HANDLED) == RECORDS
                                && f.deferralsLeft() == 0
                                && broker.committed(group, topic) == RECORDS);
                List<String> outA = a.output();
                List<String> outB = b.output();
                a.kill();
                b.kill();

                List<Run> log = Run.all(f.redis.lrange(PauseFixture.LOG, 0, -1));
                List<Run> effects = Run.all(f.redis.lrange(PauseFixture.EFFECTS, 0, -1));
                List<Run> stale = Run.all(f.redis.lrange(PauseFixture.STALE, 0, -1));
                HandlingLog firsts = HandlingLog.of(f.redis.lrange(PauseFixture.LOG, 0, -1));
                HandlingLog writes = HandlingLog.of(f.redis.lrange(PauseFixture.EFFECTS, 0, -1));
                // A's runs that began before the stop and had not written by then: the handlings the stop cut (they
                // write after A is continued, refused or taken, or end without a write: a LockLostException before it)
                Set<String> endedBeforeStop = new HashSet<>();
                for (Run r : concat(effects, stale)) {
                    if (r.consumer().equals("A") && r.millis() < stopped) {
                        endedBeforeStop.add(r.id());
                    }
                }
                Set<String> cut = log.stream()
                        .filter(r -> r.consumer().equals("A") && r.millis() < stopped)
                        .map(Run::id)
                        .filter(id -> !endedBeforeStop.contains(id))
                        .collect(Collectors.toSet());
                // runs A began after it was continued, on the partitions it had lost, before it heard of the loss
                List<Run> startedOnLost = log.stream()
                        .filter(r -> r.consumer().equals("A")
                                && r.millis() >= contFrom
                                && r.millis() <= lostAt
                                && ownedByA.contains(partitionOf.get(r.id())))
                        .toList();
                // runs of a cut handling's key that B or the worker began while it was unfinished: two runs of a key at
                // once
                Map<String, long[]> cutSpan = new HashMap<>();
                for (Run r : log) {
                    if (cut.contains(r.id()) && r.consumer().equals("A")) {
                        cutSpan.put(r.key(), new long[] {r.millis(), endOf(r, effects, stale)});
                    }
                }
                long overlapping = log.stream()
                        .filter(r -> !r.consumer().equals("A") && cutSpan.containsKey(r.key()))
                        .filter(r -> r.millis() >= cutSpan.get(r.key())[0] && r.millis() < cutSpan.get(r.key())[1])
                        .count();
                // stale writes that came after a later record of their key had been written: what a store that
                // does not check fencing tokens would take out of order
                long staleAfterLater = stale.stream()
                        .filter(st -> effects.stream()
                                .anyMatch(e ->
                                        e.key().equals(st.key()) && e.seq() > st.seq() && e.millis() < st.millis()))
                        .count();
                List<String> handledOnLost = events(outA, "HANDLED", contFrom, lostAt).stream()
                        .filter(e -> ownedByA.contains(partition(e.split(" ")[2])))
                        .toList();
                List<String> commitsOnLost = events(outA, "COMMITTED", contFrom, lostAt).stream()
                        .filter(e -> ownedByA.contains(Integer.parseInt(e.split(" ")[2])))
                        .toList();
                // a commit confirmed after A was continued may have been sent before the stop; one with an offset
                // past every record A had finished before the stop was computed after it
                Map<Integer, Long> doneBeforeStop = new HashMap<>();
                for (String e : events(outA, "HANDLED", 0, stopped)) {
                    String id = e.split(" ")[2];
                    doneBeforeStop.merge(partition(id), Long.parseLong(id.substring(id.indexOf('@') + 1)), Math::max);
                }
                List<String> commitsBeyond = commitsOnLost.stream()
                        .filter(e -> Long.parseLong(e.split(" ")[3])
                                > doneBeforeStop.getOrDefault(Integer.parseInt(e.split(" ")[2]), -1L) + 1)
                        .toList();
                List<String> failedA = events(outA, "FAILED", 0, Long.MAX_VALUE);
                List<String> failedB = events(outB, "FAILED", 0, Long.MAX_VALUE);
                List<String> dead = new ArrayList<>(events(outA, "DEAD", 0, Long.MAX_VALUE));
                dead.addAll(events(outB, "DEAD", 0, Long.MAX_VALUE));
                Set<String> repeated =
                        firsts.repeats().stream().map(HandlingLog.Repeat::id).collect(Collectors.toSet());
                Map<String, Long> runsByConsumer =
                        log.stream().collect(Collectors.groupingBy(Run::consumer, TreeMap::new, Collectors.counting()));
                long deadLetters = deadLetters(broker, topic + ".dead");
                System.out.printf(
                        "kafka pause: %d records over %d keys in %.1f s; A (partitions %s) stopped %d ms at %d handled"
                                + " while running %d handlings, B owned all %d partitions %d ms after the stop; A"
                                + " continued, heard of the loss %d ms later and rejoined after %d ms; on the lost"
                                + " partitions A then began %d runs, finished %d handlings %s and had %d commits"
                                + " confirmed (%d beyond its work before the stop); lost %d, repeated runs %d %s, inversions %d"
                                + " (first runs) / %d (fenced writes), runs of a cut handling's key begun by another"
                                + " consumer while it was unfinished %d, stale writes refused %d %s (%d after a later"
                                + " record of their key), failures in A %s, dead letters %d, runs by"
                                + " consumer %s%n",
                        RECORDS,
                        KEYS,
                        (System.nanoTime() - started) / 1e9,
                        ownedByA,
                        contFrom - stopped,
                        handledAtStop,
                        cut.size(),
                        PARTITIONS,
                        takenOver - stopped,
                        lostAt - contFrom,
                        rejoined - contFrom,
                        startedOnLost.size(),
                        handledOnLost.size(),
                        outcomes(handledOnLost),
                        commitsOnLost.size(),
                        commitsBeyond.size(),
                        RECORDS - firsts.firstHandlings(),
                        firsts.duplicates(),
                        repeated,
                        firsts.inversions(),
                        writes.inversions(),
                        overlapping,
                        stale.size(),
                        stale.stream().map(Run::id).toList(),
                        staleAfterLater,
                        failedA.stream().map(e -> e.split(" ", 4)[3]).toList(),
                        deadLetters,
                        runsByConsumer);

                assertThat(firsts.firstHandlings()).as("records handled").isEqualTo(RECORDS);
                assertThat(writes.firstHandlings())
                        .as("records whose write the store took")
                        .isEqualTo(RECORDS);
                assertThat(deadLetters).as("dead letters").isZero();
                assertThat(dead).as("dead-lettered (listeners)").isEmpty();
                assertThat(cut)
                        .as("handlings the stop cut (one per handler thread at most)")
                        .isNotEmpty()
                        .hasSizeLessThanOrEqualTo(CONCURRENCY);
                assertThat(firsts.inversions())
                        .as("order inversions among first runs: %s", firsts.firstInversions())
                        .isZero();
                assertThat(writes.inversions())
                        .as("order inversions among the writes the store took: %s", writes.firstInversions())
                        .isZero();
                assertThat(repeated)
                        .as("records run twice: only handlings the stop cut")
                        .isSubsetOf(cut);
                assertThat(stale)
                        .as("stale writes: only from handlings the stop cut")
                        .allMatch(r -> r.consumer().equals("A") && cut.contains(r.id()));
                assertThat(commitsBeyond)
                        .as("commits of work done after the stop confirmed to A for partitions it had lost")
                        .isEmpty();
                assertThat(failedB).as("failures in B").isEmpty();
                assertThat(failedA)
                        .as("failures in A: the lost locks of handlings the stop cut, on their first attempt")
                        .hasSizeLessThanOrEqualTo(CONCURRENCY)
                        .allMatch(
                                e -> Long.parseLong(e.split(" ")[1]) >= contFrom && e.endsWith(" 1 LockLostException"));
                assertThat(lostAt - contFrom)
                        .as("ms from the continue until A heard of the loss (its next poll)")
                        .isLessThan(PauseConsumerMain.SESSION.toMillis());
                assertThat(rejoined).as("A rejoined after the loss").isGreaterThanOrEqualTo(lostAt);
            }
        }
    }

    /** A log entry: {@code "<key> <seq> <id> <consumer> <token> <millis>"}. */
    record Run(String key, int seq, String id, String consumer, long token, long millis) {
        static List<Run> all(List<String> entries) {
            List<Run> out = new ArrayList<>(entries.size());
            for (String e : entries) {
                String[] f = e.split(" ");
                out.add(new Run(f[0], Integer.parseInt(f[1]), f[2], f[3], Long.parseLong(f[4]), Long.parseLong(f[5])));
            }
            return out;
        }
    }

    /** When run {@code r}'s write was judged (taken or refused as stale). */
    private static long endOf(Run r, List<Run> effects, List<Run> stale) {
        return concat(effects, stale).stream()
                .filter(w -> w.id().equals(r.id()) && w.consumer().equals(r.consumer()) && w.token() == r.token())
                .mapToLong(Run::millis)
                .findFirst()
                .orElse(Long.MAX_VALUE);
    }

    private static List<Run> concat(List<Run> x, List<Run> y) {
        List<Run> out = new ArrayList<>(x);
        out.addAll(y);
        return out;
    }

    private static JvmProcess consumer(
            RedisServer server, KafkaBroker broker, String topic, String group, String name) {
        return JvmProcess.start(
                PauseConsumerMain.class,
                List.of("-Xmx256m"),
                Integer.toString(server.port()),
                broker.bootstrap(),
                topic,
                group,
                name,
                Integer.toString(CONCURRENCY),
                Long.toString(WORK.toMillis()),
                Long.toString(LEASE.toMillis()));
    }

    /** Sends the records, record {@code i} of key {@code k<i % KEYS>} with seq {@code i / KEYS}; id → partition. */
    private static Map<String, Integer> produce(KafkaBroker broker, String topic) throws Exception {
        Map<String, Future<RecordMetadata>> sent = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> p = Fixture.producer(broker.bootstrap())) {
            for (int i = 0; i < RECORDS; i++) {
                ContractMessage m = new ContractMessage("m" + i, "k" + (i % KEYS), i / KEYS, false);
                sent.put(
                        m.id(),
                        p.send(new ProducerRecord<>(
                                topic, m.key().getBytes(StandardCharsets.UTF_8), JSON.writeValueAsBytes(m))));
            }
            p.flush();
        }
        Map<String, Integer> out = new HashMap<>();
        for (Map.Entry<String, Future<RecordMetadata>> e : sent.entrySet()) {
            out.put(e.getKey(), e.getValue().get().partition());
        }
        return out;
    }

    private static long runs(PauseFixture f, String consumer) {
        String n = f.redis.hget(PauseFixture.RUNS, consumer);
        return n == null ? 0 : Long.parseLong(n);
    }

    /** The partitions a consumer owns now: its last assignment, unless revoked since. */
    private static Set<Integer> owned(JvmProcess p) {
        Set<Integer> out = new HashSet<>();
        for (String line : p.output()) {
            if (line.startsWith("REVOKED ")) {
                out.clear();
            } else if (line.startsWith("ASSIGNED ")) {
                out.clear();
                String[] f = line.split(" ");
                if (f.length > 2) {
                    for (String tp : f[2].split(",")) {
                        out.add(Integer.parseInt(tp));
                    }
                }
            }
        }
        return out;
    }

    private static long lastEvent(JvmProcess p, String kind) {
        long at = -1;
        for (String line : p.output()) {
            if (line.startsWith(kind + " ")) {
                at = Long.parseLong(line.split(" ")[1]);
            }
        }
        return at;
    }

    /** The lines of {@code kind} printed at a time in [from, to]. */
    private static List<String> events(List<String> output, String kind, long from, long to) {
        return output.stream()
                .filter(l -> l.startsWith(kind + " "))
                .filter(l -> {
                    long at = Long.parseLong(l.split(" ")[1]);
                    return at >= from && at <= to;
                })
                .toList();
    }

    /** The partition of a record id {@code <topic>-<partition>@<offset>}. */
    private static int partition(String recordId) {
        return Integer.parseInt(recordId.substring(recordId.lastIndexOf('-') + 1, recordId.indexOf('@')));
    }

    private static Map<String, Long> outcomes(List<String> handled) {
        return handled.stream()
                .collect(Collectors.groupingBy(l -> l.split(" ")[3], TreeMap::new, Collectors.counting()));
    }

    private static long deadLetters(KafkaBroker broker, String topic) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", broker.bootstrap()),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            c.partitionsFor(topic).forEach(pi -> tps.add(new TopicPartition(pi.topic(), pi.partition())));
            long end = c.endOffsets(tps).values().stream()
                    .mapToLong(Long::longValue)
                    .sum();
            long start = c.beginningOffsets(tps).values().stream()
                    .mapToLong(Long::longValue)
                    .sum();
            return end - start;
        }
    }
}
