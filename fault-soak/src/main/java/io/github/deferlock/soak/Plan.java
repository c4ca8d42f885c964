package io.github.deferlock.soak;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A schedule, drawn from its seed alone: the faults (kind, start, duration, target) and which client JVMs ack
 * their jobs themselves. The same seed always gives the same plan; the interleaving with the load is up to
 * the machine, so a replay reproduces the faults, not every event. Immutable.
 *
 * @param seed the seed
 * @param settings the sizes and timeouts every schedule uses
 * @param selfAck per client slot: true when its handlers ack each job through {@code DelayQueue.ack} (and
 *     record the result), false when they return and the worker acks in batches
 * @param faults the faults, by start time
 */
record Plan(long seed, Settings settings, List<Boolean> selfAck, List<Fault> faults) {

    Plan {
        selfAck = List.copyOf(selfAck);
        faults = List.copyOf(faults);
    }

    /** The plan of {@code seed} with {@code settings}. */
    static Plan of(long seed, Settings settings) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Boolean> selfAck = new ArrayList<>();
        for (int i = 0; i < settings.clients(); i++) {
            selfAck.add(r.nextBoolean());
        }
        List<Fault.Kind> kinds = settings.topology().draws();
        int n = settings.minFaults() + r.nextInt(settings.maxFaults() - settings.minFaults() + 1);
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Fault.Kind kind = kinds.get(r.nextInt(kinds.size()));
            long at = 200 + r.nextLong(Math.max(1, settings.loadMs() - 700));
            int slot = r.nextInt(settings.clients()); // the target tag index for cluster faults (3 tags, 3 clients)
            long duration =
                    switch (kind) {
                        case CLIENT_KILL -> r.nextLong(0, 800);
                        // up to beyond the lease and the visibility timeout: the paused holder must be fenced off
                        case CLIENT_STOP -> r.nextLong(300, 2 * settings.visibilityMs() + 1);
                        case REDIS_KILL -> r.nextLong(100, 1500);
                        case PROXY_CUT -> 0;
                        case PROXY_BLACKHOLE -> r.nextLong(200, 2500);
                        case PROXY_BLACKHOLE_REPLIES -> r.nextLong(200, 1500);
                        case PROXY_LATENCY -> r.nextLong(300, 2000);
                        // after the failover completed, before the old master is restarted
                        case MASTER_KILL, MASTER_FAILOVER -> r.nextLong(0, 1500);
                        case SLOT_MIGRATE -> r.nextLong(200, 1500);
                    };
            long latency = kind == Fault.Kind.PROXY_LATENCY ? r.nextLong(10, 150) : 0;
            faults.add(new Fault(kind, at, duration, slot, latency));
        }
        faults.sort(Comparator.comparingLong(Fault::atMs));
        return new Plan(seed, settings, selfAck, faults);
    }

    @Override
    public String toString() {
        return "seed " + seed + ": self-ack " + selfAck + ", faults " + faults;
    }
}
