package io.github.deferlock.delay;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Queue calls for unit tests of the worker's mechanisms: each call is recorded; its answer is scripted (a
 * failure, or for claims a batch) or, by default, success.
 */
final class FakeCalls implements QueueCalls<String> {
    /** One recorded call. */
    record Call(String op, List<String> jobIds, int max, String token) {}

    final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    /** Failures to throw, one per call, from the next call on (null: succeed). */
    final Queue<RuntimeException> failures = new ArrayDeque<>();
    /** The next claims' jobs (empty when none scripted). */
    final Queue<List<Job<String>>> claims = new ArrayDeque<>();
    /** Job ids whose settlement is refused (stale receipt). */
    final Set<String> stale = ConcurrentHashMap.newKeySet();

    private int tokens;

    static Job<String> job(String id, int attempts) {
        Instant due = Instant.ofEpochMilli(1_000_000);
        return new Job<>(id, "payload-" + id, attempts, due, "r-" + id, null, due.plusSeconds(30));
    }

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public synchronized ClaimBatch<String> claim(int max, List<Job<String>> acks, String token) {
        record("claim", acks, max, token);
        List<Job<String>> jobs = claims.isEmpty() ? List.of() : claims.poll();
        return new ClaimBatch<>(jobs, 1_000_000_000L, -1, results(acks));
    }

    @Override
    public synchronized String newToken() {
        return "t" + ++tokens;
    }

    @Override
    public synchronized List<Boolean> ackAll(List<Job<String>> jobs, String token) {
        record("ackAll", jobs, 0, token);
        return results(jobs);
    }

    @Override
    public synchronized boolean ack(Job<String> job, String token) {
        record("ack", List.of(job), 0, token);
        return !stale.contains(job.id());
    }

    @Override
    public boolean nack(Job<String> job, String error, String token) {
        return one("nack", job, token);
    }

    @Override
    public boolean giveBack(Job<String> job, String token) {
        return one("giveBack", job, token);
    }

    @Override
    public synchronized List<Boolean> extendAll(List<Job<String>> jobs) {
        record("extend", jobs, 0, null);
        return results(jobs);
    }

    /** The recorded calls of one kind. */
    List<Call> calls(String op) {
        synchronized (calls) {
            return calls.stream().filter(c -> c.op().equals(op)).toList();
        }
    }

    private synchronized boolean one(String op, Job<String> job, String token) {
        record(op, List.of(job), 0, token);
        return !stale.contains(job.id());
    }

    private void record(String op, List<Job<String>> jobs, int max, String token) {
        calls.add(new Call(op, jobs.stream().map(Job::id).toList(), max, token));
        RuntimeException e = failures.poll();
        if (e != null) {
            throw e;
        }
    }

    private List<Boolean> results(List<Job<String>> jobs) {
        List<Boolean> out = new ArrayList<>();
        for (Job<String> j : jobs) {
            out.add(!stale.contains(j.id()));
        }
        return out;
    }
}
