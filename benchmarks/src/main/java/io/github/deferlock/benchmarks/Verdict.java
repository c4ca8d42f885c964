package io.github.deferlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The verdict rules. A target compares deferlock with a peer (a ratio) or with a bound. When both sides have
 * the same number of rounds, the ratio of each round is taken (the sides ran in the same round, in shuffled
 * order); otherwise the widest ratio the two spreads allow. Over the rounds:
 *
 * <ul>
 *   <li><b>met</b>: every round meets the target;
 *   <li><b>missed</b>: every round misses it;
 *   <li><b>inconclusive</b>: the spread straddles the target;
 *   <li><b>saturated</b>: a round of either side handled or served less than was offered, so its latency is
 *       backlog and gets no verdict;
 *   <li><b>not measured</b>: a side has no figure (or a peer's figure is 0, so no ratio exists).
 * </ul>
 */
enum Verdict {
    MET("met"),
    MISSED("missed"),
    INCONCLUSIVE("inconclusive"),
    SATURATED("saturated"),
    NOT_MEASURED("not measured"),
    REPORTED("reported");

    private final String label;

    Verdict(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }

    /**
     * A target's verdict with the ratio (or deferlock's figure, for a bound) it was judged on.
     *
     * @param verdict the verdict
     * @param median the median ratio or figure
     * @param min the smallest
     * @param max the largest
     * @param roundsMet how many rounds met the target (0 when {@code rounds} is 0)
     * @param rounds how many rounds were judged one by one; 0 when the sides' rounds do not pair up (the
     *     verdict then rests on the widest ratio the two spreads allow) or nothing was measured
     */
    record Judgement(Verdict verdict, double median, double min, double max, int roundsMet, int rounds) {

        static Judgement none(Verdict verdict) {
            return new Judgement(verdict, Double.NaN, Double.NaN, Double.NaN, 0, 0);
        }

        /** The verdict with how many rounds met the target: "inconclusive (3 of 5 rounds met)". */
        String label() {
            if (rounds > 0 && (verdict == INCONCLUSIVE || verdict == MISSED || verdict == MET)) {
                return verdict.label() + " (" + roundsMet + " of " + rounds + " rounds met)";
            }
            return verdict.label();
        }

        String describe() {
            if (Double.isNaN(median)) {
                return label();
            }
            String range = min == max ? fmt(median) : fmt(median) + " (" + fmt(min) + "–" + fmt(max) + ")";
            return label() + ": " + range;
        }

        private static String fmt(double v) {
            return Math.abs(v) < 10 ? String.format(Locale.ROOT, "%.2f", v) : Report.number(v);
        }
    }

    static Judgement judge(Metric m, Metric.Target t, Results r) {
        Results.Side ours = r.side(m.id(), Sides.DEFERLOCK);
        if (ours == null || ours.values().isEmpty()) {
            return Judgement.none(NOT_MEASURED);
        }
        List<Double> values;
        boolean paired = true;
        boolean saturated = ours.saturated();
        double median;
        if (t.peer() == null) {
            values = ours.values();
            median = ours.stat().median();
        } else {
            Results.Side peer = r.side(m.id(), t.peer());
            if (peer == null || peer.values().isEmpty()) {
                return Judgement.none(NOT_MEASURED);
            }
            saturated |= peer.saturated();
            paired = ours.values().size() == peer.values().size();
            values = ratios(ours.values(), peer.values());
            median = ours.stat().median() / peer.stat().median();
        }
        Results.Stat st = Results.Stat.of(values);
        if (st.rounds() == 0 || Double.isInfinite(st.max()) || Double.isInfinite(st.min()) || Double.isNaN(median)) {
            return Judgement.none(NOT_MEASURED);
        }
        if (saturated) {
            return new Judgement(SATURATED, median, st.min(), st.max(), 0, 0);
        }
        double bound = t.value();
        boolean allMet = m.higherIsBetter() ? st.min() >= bound : st.max() <= bound;
        boolean allMissed = m.higherIsBetter() ? st.max() < bound : st.min() > bound;
        Verdict v = allMet ? MET : allMissed ? MISSED : INCONCLUSIVE;
        int met = (int) values.stream()
                .filter(x -> m.higherIsBetter() ? x >= bound : x <= bound)
                .count();
        return paired
                ? new Judgement(v, median, st.min(), st.max(), met, values.size())
                : new Judgement(v, median, st.min(), st.max(), 0, 0);
    }

    /** Per-round ratios when the rounds pair up, else the two extreme cross ratios. */
    static List<Double> ratios(List<Double> ours, List<Double> peer) {
        List<Double> out = new ArrayList<>();
        if (ours.size() == peer.size()) {
            for (int i = 0; i < ours.size(); i++) {
                out.add(ours.get(i) / peer.get(i));
            }
            return out;
        }
        Results.Stat o = Results.Stat.of(ours);
        Results.Stat p = Results.Stat.of(peer);
        out.add(o.min() / p.max());
        out.add(o.max() / p.min());
        return out;
    }

    /** The metric's verdict over all its targets: missed, inconclusive, saturated, not measured, met. */
    static Verdict overall(Metric m, Results r) {
        if (m.targets().isEmpty()) {
            return REPORTED;
        }
        List<Verdict> all = new ArrayList<>();
        for (Metric.Target t : m.targets()) {
            all.add(judge(m, t, r).verdict());
        }
        for (Verdict v : List.of(MISSED, INCONCLUSIVE, SATURATED, NOT_MEASURED)) {
            if (all.contains(v)) {
                return v;
            }
        }
        return MET;
    }
}
