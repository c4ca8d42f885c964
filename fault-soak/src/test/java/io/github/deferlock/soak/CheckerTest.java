package io.github.deferlock.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker reports each kind of broken promise in fabricated histories, and nothing in a clean one. */
final class CheckerTest {

    private static final long SEED = 42;

    /** A clean history: two holds one after the other, one job enqueued, handled, acked; queue empty. */
    private static History.Builder clean() {
        return new History.Builder()
                .line("ACQ r0 5 a 1000 1010")
                .line("WRITE r0 5 a 1020 1")
                .line("WRITE r0 5 a 1060 1")
                .line("REL r0 5 a 1100 released")
                .line("ACQ r0 6 b 1105 1110")
                .line("WRITE r0 6 b 1120 1")
                .line("WRITE r0 5 a 1130 0") // a stale write, rejected: fine
                .line("REL r0 6 b 1200 released")
                .line("ENQ j1")
                .line("H j1 rc1 1 1300 c0g0")
                .line("R j1 rc1 1320")
                .line("A j1 rc1 1 1325");
    }

    private static List<Violation> check(History.Builder b, History.QueueEnd end) {
        return Checker.check(SEED, b.build(end));
    }

    private static List<String> checks(List<Violation> violations) {
        return violations.stream().map(Violation::check).toList();
    }

    @Test
    void check_cleanHistory_reportsNothing() {
        assertThat(check(clean(), History.QueueEnd.empty())).isEmpty();
    }

    @Test
    void check_acceptedTokenDecreases_reportsTokenOrder() {
        List<Violation> v = check(clean().line("WRITE r0 4 z 1210 1"), History.QueueEnd.empty());

        assertThat(checks(v)).contains("token-order");
        assertThat(v).allSatisfy(x -> assertThat(x.seed()).isEqualTo(SEED));
        assertThat(v.get(0).detail()).contains("accepted token 4").contains("after token 6");
    }

    @Test
    void check_oneTokenAcceptedForTwoHolds_reportsTokenOrder() {
        List<Violation> v = check(clean().line("WRITE r0 6 c 1210 1"), History.QueueEnd.empty());

        assertThat(checks(v)).contains("token-order");
        assertThat(v.get(0).detail()).contains("from two holds");
    }

    @Test
    void check_laterRequestGetsSmallerToken_reportsTokenOrder() {
        List<Violation> v = check(clean().line("ACQ r0 3 c 1300 1310"), History.QueueEnd.empty());

        assertThat(checks(v)).containsExactly("token-order");
        assertThat(v.get(0).detail()).contains("granted token 3 to hold c");
    }

    @Test
    void check_writesOfTwoHoldsInterleave_reportsOverlap() {
        // the fence accepted a, then b, then a again (as a fence that let equal or lower tokens in would)
        History.Builder b = new History.Builder()
                .line("ACQ r1 7 a 1000 1010")
                .line("WRITE r1 7 a 1020 1")
                .line("WRITE r1 8 b 1030 1")
                .line("WRITE r1 7 a 1040 1");

        assertThat(checks(check(b, History.QueueEnd.empty()))).contains("overlap");
    }

    @Test
    void check_writeAcceptedFromAHolderAfterANewerHoldAcquired_reportsOverlap() {
        // b acquired at 1110; a still believed it held at 1130 and the fence took its write (b had not written)
        History.Builder b = new History.Builder()
                .line("ACQ r0 5 a 1000 1010")
                .line("WRITE r0 5 a 1020 1")
                .line("ACQ r0 6 b 1105 1110")
                .line("WRITE r0 5 a 1130 1")
                .line("WRITE r0 6 b 1140 1");

        List<Violation> v = check(b, History.QueueEnd.empty());

        assertThat(checks(v)).containsExactly("overlap");
        assertThat(v.get(0).detail()).contains("hold a").contains("hold b").contains("1110");
    }

    @Test
    void check_writeSentKnowingTheHoldWasLost_isJudgedByTheFenceAlone() {
        // a paused holder resumed, saw isHeld() false and still wrote once: accepted because b had not written
        History.Builder b = new History.Builder()
                .line("ACQ r0 5 a 1000 1010")
                .line("WRITE r0 5 a 1020 1 1")
                .line("ACQ r0 6 b 3105 3110")
                .line("WRITE r0 5 a 3130 1 0")
                .line("WRITE r0 6 b 3140 1 1")
                .line("WRITE r0 5 a 3150 0 0");

        assertThat(check(b, History.QueueEnd.empty())).isEmpty();
    }

    @Test
    void check_acknowledgedEnqueueNeverHandled_reportsLostEnqueue() {
        History.Builder b = clean().line("ENQ j2").line("H j2 rc2 1 1400 c1g0"); // began, never finished

        List<Violation> v = check(b, History.QueueEnd.empty());

        assertThat(checks(v)).containsExactly("lost-enqueue");
        assertThat(v.get(0).detail()).contains("j2").contains("gone");
    }

    @Test
    void check_enqueueWithUnknownOutcomeNeverHandled_isNoViolation() {
        assertThat(check(clean().line("ENQ? j9"), History.QueueEnd.empty())).isEmpty();
    }

    @Test
    void check_deliveryRunsAfterItsAck_reportsHandledAfterAck() {
        History.Builder b = clean().line("H j1 rc1 1 1400 c2g0");

        List<Violation> v = check(b, History.QueueEnd.empty());

        assertThat(checks(v)).contains("handled-after-ack");
        assertThat(v).anySatisfy(x -> assertThat(x.detail()).contains("acked at 1325"));
    }

    @Test
    void check_redeliveryWithAnotherReceipt_isNoViolation() {
        // at least once: a second delivery (new receipt) before the ack is allowed
        History.Builder b = new History.Builder()
                .line("ENQ j1")
                .line("H j1 rc1 1 1300 c0g0")
                .line("H j1 rc2 2 3400 c1g0")
                .line("R j1 rc2 3420")
                .line("A j1 rc2 1 3425")
                .line("R j1 rc1 3500")
                .line("A j1 rc1 0 3505");

        assertThat(check(b, History.QueueEnd.empty())).isEmpty();
    }

    @Test
    void check_jobLeftInFlight_reportsStuck() {
        History.Builder b = clean().line("ENQ j3").line("H j3 rc3 1 1400 c0g0").line("R j3 rc3 1420");
        History.QueueEnd end = new History.QueueEnd(0, 1, Map.of("j3", "IN_FLIGHT"), Map.of());

        List<Violation> v = check(b, end);

        assertThat(checks(v)).containsExactly("stuck");
        assertThat(v.get(0).detail()).contains("1 in flight").contains("j3=IN_FLIGHT");
    }

    @Test
    void check_deadLetterWithoutReason_reportsStuck() {
        History.QueueEnd end = new History.QueueEnd(0, 0, Map.of("j1", "DEAD"), Map.of("j1", " "));

        assertThat(checks(check(clean(), end))).containsExactly("stuck");
    }

    @Test
    void check_manyOfOneKind_keepsFiveDetailsAndCountsTheRest() {
        History.Builder b = clean();
        for (int i = 0; i < 8; i++) {
            b.line("ENQ lost" + i);
        }

        List<Violation> v = check(b, History.QueueEnd.empty());

        assertThat(v).hasSize(Checker.MAX_DETAILS + 1);
        assertThat(v.get(Checker.MAX_DETAILS).detail()).isEqualTo("... and 3 more of this kind");
    }

    @Test
    void plan_sameSeed_sameFaults() {
        Settings s = Settings.defaults();

        assertThat(Plan.of(7, s)).isEqualTo(Plan.of(7, s));
        assertThat(Plan.of(7, s).faults()).hasSizeBetween(s.minFaults(), s.maxFaults());
        assertThat(Plan.of(7, s)).isNotEqualTo(Plan.of(8, s));
    }

    /**
     * A failover window from 4500 to 9000: every replica confirmed the runner's WAIT sent at 4500, the master
     * was killed at 5000 and was back as a replica at 9000.
     */
    private static History.Builder withFailover() {
        return clean().line("FO master_kill 5000 9000 4500");
    }

    @Test
    void check_unreplicatedEnqueueLostInFailover_isCountedNotAViolation() {
        // acknowledged at 4990 without WAIT, never handled, gone after the failover
        History.Builder b = withFailover().line("ENQ j5 4990");

        Checker.Verdict v = Checker.judge(SEED, b.build(History.QueueEnd.empty()));

        assertThat(v.violations()).isEmpty();
        assertThat(v.failoverLosses()).containsExactly(Map.entry("enqueue", 1));
        assertThat(v.lossDetails()).singleElement().asString().contains("j5").contains("seed 42");
    }

    @Test
    void check_replicaAcknowledgedEnqueueLostInFailover_reportsLostEnqueue() {
        // the same loss, but every replica had acknowledged the enqueue (waitForReplicas): a broken promise
        History.Builder b = withFailover().line("ENQW j6 4990");

        Checker.Verdict v = Checker.judge(SEED, b.build(History.QueueEnd.empty()));

        assertThat(checks(v.violations())).containsExactly("lost-enqueue");
        assertThat(v.violations().get(0).detail()).contains("j6").contains("every replica");
        assertThat(v.failoverLosses()).isEmpty();
    }

    @Test
    void check_unreplicatedEnqueueLostOutsideAnyFailover_reportsLostEnqueue() {
        // acknowledged before the WAIT every replica confirmed (so every replica had it) or after the window
        History.Builder b = withFailover().line("ENQ j7 4499").line("ENQ j8 9001");

        Checker.Verdict v = Checker.judge(SEED, b.build(History.QueueEnd.empty()));

        assertThat(checks(v.violations())).containsExactly("lost-enqueue", "lost-enqueue");
        assertThat(v.violations().get(0).detail()).contains("j7").contains("replicas in sync at 4500");
        assertThat(v.failoverLosses()).isEmpty();
    }

    @Test
    void check_enqueueLostInFailoverWhoseReplicasDidNotConfirm_isCountedFromTheScheduleStart() {
        // the replicas did not confirm the WAIT: nothing tells which earlier writes they had
        History.Builder b =
                clean().line("FO master_kill 5000 9000 -").line("ENQ j7 1000").line("ENQ j8 9001");

        Checker.Verdict v = Checker.judge(SEED, b.build(History.QueueEnd.empty()));

        assertThat(checks(v.violations())).containsExactly("lost-enqueue");
        assertThat(v.violations().get(0).detail()).contains("j8").contains("replica sync unknown");
        assertThat(v.failoverLosses()).containsExactly(Map.entry("enqueue", 1));
    }

    @Test
    void check_oldFailoverLineWithoutSyncField_isReadAsUnknown() {
        History h = clean().line("FO master_kill 5000 9000").build(History.QueueEnd.empty());

        assertThat(h.failovers()).singleElement().satisfies(f -> assertThat(f.synced())
                .isFalse());
    }

    @Test
    void check_unreplicatedEnqueueStillQueued_isNoFailoverLoss() {
        // not lost but never handled: still due after the settle, so stuck (and a lost enqueue)
        History.Builder b = withFailover().line("ENQ j9 4990");
        History.QueueEnd end = new History.QueueEnd(1, 0, Map.of("j9", "DUE"), Map.of());

        Checker.Verdict v = Checker.judge(SEED, b.build(end));

        assertThat(checks(v.violations())).containsExactlyInAnyOrder("lost-enqueue", "stuck");
        assertThat(v.failoverLosses()).isEmpty();
    }

    @Test
    void check_deliveryRunsAgainAfterItsAckAcrossAFailover_isCountedAsLostAck() {
        History.Builder b = withFailover()
                .line("ENQ j10 4000")
                .line("H j10 rc7 1 4600 c0g0")
                .line("R j10 rc7 4620")
                .line("A j10 rc7 1 4625")
                .line("H j10 rc7 1 7000 c1g0"); // the receipt counter was lost with the old master

        Checker.Verdict v = Checker.judge(SEED, b.build(History.QueueEnd.empty()));

        assertThat(v.violations()).isEmpty();
        assertThat(v.failoverLosses()).containsKey("ack");
    }

    @Test
    void check_deliveryRunsAgainAfterAnAckEveryReplicaHad_reportsHandledAfterAck() {
        // the ack at 4125 came before the WAIT at 4500 that every replica confirmed: no failover can lose it
        History.Builder b = withFailover()
                .line("ENQ j11 4000")
                .line("H j11 rc8 1 4100 c0g0")
                .line("R j11 rc8 4120")
                .line("A j11 rc8 1 4125")
                .line("H j11 rc8 1 7000 c1g0");

        Checker.Verdict v = Checker.judge(SEED, b.build(History.QueueEnd.empty()));

        assertThat(checks(v.violations())).isNotEmpty().containsOnly("handled-after-ack");
        assertThat(v.failoverLosses()).isEmpty();
    }

    @Test
    void check_staleHolderWritesAfterANewerGrantAcrossAFailover_isCountedAsLostLock() {
        // a's grant at 4600 was not replicated; b got the lock from the promoted replica at 6000
        History.Builder b = withFailover()
                .line("ACQ r1 10 a 4590 4600")
                .line("WRITE r1 10 a 4610 1")
                .line("ACQ r1 11 b 5990 6000")
                .line("WRITE r1 10 a 6010 1")
                .line("WRITE r1 11 b 6020 1");

        Checker.Verdict v = Checker.judge(SEED, b.build(History.QueueEnd.empty()));

        assertThat(v.violations()).isEmpty();
        assertThat(v.failoverLosses()).containsExactly(Map.entry("lock", 1));
    }

    @Test
    void plan_standalone_drawsTheFaultsItDrewBeforeTopologies() {
        // printed by the Plan, Fault and Settings of the commit before topologies, for seeds 1 and 3
        assertThat(Plan.of(1, Settings.defaults()).toString())
                .isEqualTo("seed 1: self-ack [false, true, false], faults [t=492ms proxy latency 99ms for 1008ms,"
                        + " t=624ms SIGKILL client 0, replaced after 666ms, t=1022ms proxy cut, t=1675ms proxy cut,"
                        + " t=2620ms proxy blackhole replies for 1196ms]");
        assertThat(Plan.of(3, Settings.defaults()).toString())
                .isEqualTo("seed 3: self-ack [false, false, false], faults [t=950ms SIGKILL redis-server, restart"
                        + " after 126ms, t=1667ms proxy latency 51ms for 635ms, t=3406ms SIGKILL redis-server,"
                        + " restart after 695ms]");
    }

    @Test
    void plan_eachTopology_drawsOnlyItsOwnFaults() {
        for (Topology t : Topology.values()) {
            for (long seed = 1; seed <= 50; seed++) {
                assertThat(Plan.of(seed, Settings.defaults(t)).faults())
                        .allSatisfy(f -> assertThat(t.kinds()).contains(f.kind()));
            }
        }
        assertThat(Settings.defaults(Topology.CLUSTER).settleMaxMs())
                .isGreaterThan(Settings.defaults().settleMaxMs());
    }

    @Test
    void check_clientThreadEndedWithAnUncaughtException_reportsClientCrash() {
        List<Violation> v =
                check(clean().line("CRASH c1g0 holder-r1 java.lang.ClassCastException 1250"), History.QueueEnd.empty());
        assertThat(v).singleElement().satisfies(x -> {
            assertThat(x.check()).isEqualTo("client-crash");
            assertThat(x.detail()).contains("holder-r1", "c1g0", "java.lang.ClassCastException");
        });
    }
}
