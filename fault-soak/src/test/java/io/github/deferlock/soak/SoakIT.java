package io.github.deferlock.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The short soak of the test suite: 10 seeded schedules (seeds 1..10, the first ten of {@code ./soak}), each
 * with 3 client JVMs, a redis-server with AOF always behind a fault proxy and 2 to 5 faults. Fails on any
 * violation (listed with its seed) and when the schedules did not actually lock, write, enqueue, handle and
 * inject faults.
 */
final class SoakIT {

    @Test
    void soak_tenSeededSchedules_noViolation() {
        Settings settings = Settings.defaults();
        Totals totals = new Totals();
        List<Violation> violations = new ArrayList<>();
        long start = System.nanoTime();
        for (long seed = 1; seed <= 10; seed++) {
            ScheduleRun.Result r = ScheduleRun.run(Plan.of(seed, settings));
            totals.add(r);
            violations.addAll(r.violations());
            System.out.println(Soak.line((int) seed, 10, r));
        }
        System.out.print(totals.render((System.nanoTime() - start) / 1_000_000));

        assertThat(violations)
                .as("violations (replay with ./soak --seed <seed>)")
                .isEmpty();
        assertThat(totals.locksAcquired).isPositive();
        assertThat(totals.writesAccepted).isPositive();
        assertThat(totals.enqueued).isPositive();
        assertThat(totals.jobsHandled).isGreaterThanOrEqualTo(totals.enqueued);
        assertThat(totals.render(0)).doesNotContain("faults injected: 0");
    }
}
