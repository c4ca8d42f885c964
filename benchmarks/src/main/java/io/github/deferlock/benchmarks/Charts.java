package io.github.deferlock.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the PNG chart of every {@code curve.*} id with points (issue 30) with XChart, headless: one line per side,
 * the median of each point, deferlock drawn thicker. Called by {@link Report#write}, so {@code --render-only}
 * redraws them from results.json.
 */
final class Charts {

    static final int WIDTH = 800;
    static final int HEIGHT = 480;

    /** deferlock first and thicker; the peers in fixed colours by side name, so every chart reads alike. */
    private static final Map<String, Color> COLORS = Map.ofEntries(
            Map.entry(Sides.DEFERLOCK, new Color(0xD62728)),
            Map.entry(Sides.RAW, new Color(0x7F7F7F)),
            Map.entry(Sides.RAW_FENCED, new Color(0xBCBD22)),
            Map.entry(Sides.RLOCK, new Color(0x1F77B4)),
            Map.entry(Sides.FENCED, new Color(0x2CA02C)),
            Map.entry(Sides.FAIR, new Color(0x9467BD)),
            Map.entry(Sides.REDISSON, new Color(0x1F77B4)),
            Map.entry(Sides.BULLMQ, new Color(0xFF7F0E)));

    private Charts() {}

    /** Draws every curve of {@code results} that has a point into {@code dir}; returns the files written. */
    static List<Path> write(Path dir, Results results) {
        System.setProperty("java.awt.headless", "true");
        List<Path> written = new ArrayList<>();
        for (Curve c : Curves.ALL) {
            Map<String, NavigableMap<Double, Results.Side>> curve = results.curve(c.id());
            if (curve.isEmpty()) {
                continue;
            }
            try {
                Files.createDirectories(dir);
                Path file = dir.resolve(c.chartFile());
                BitmapEncoder.saveBitmap(chart(c, curve), file.toString(), BitmapEncoder.BitmapFormat.PNG);
                written.add(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot draw " + c.id(), e);
            }
        }
        return written;
    }

    static XYChart chart(Curve c, Map<String, NavigableMap<Double, Results.Side>> curve) {
        XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(c.id() + " (" + c.better() + " is better)")
                .xAxisTitle(c.x())
                .yAxisTitle(c.unit())
                .build();
        XYStyler style = chart.getStyler();
        style.setXAxisLogarithmic(c.logX());
        style.setLegendPosition(Styler.LegendPosition.OutsideE);
        style.setChartBackgroundColor(Color.WHITE);
        style.setPlotGridLinesColor(new Color(0xDDDDDD));
        style.setAntiAlias(true);
        style.setXAxisDecimalPattern("#,###.##");
        List<String> order = new ArrayList<>(c.sides());
        curve.keySet().stream().filter(s -> !order.contains(s)).forEach(order::add);
        for (String side : order) {
            NavigableMap<Double, Results.Side> points = curve.get(side);
            if (points == null) {
                continue;
            }
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            points.forEach((x, p) -> {
                double y = p.stat().median();
                if (!Double.isNaN(y)) {
                    xs.add(x);
                    ys.add(y);
                }
            });
            if (xs.isEmpty()) {
                continue;
            }
            boolean saturated = points.values().stream().anyMatch(Results.Side::saturated);
            XYSeries s = chart.addSeries(saturated ? side + " (saturated points)" : side, xs, ys);
            s.setMarker(SeriesMarkers.CIRCLE);
            s.setLineColor(COLORS.getOrDefault(side, Color.DARK_GRAY));
            s.setMarkerColor(COLORS.getOrDefault(side, Color.DARK_GRAY));
            s.setLineStyle(new BasicStroke(side.equals(Sides.DEFERLOCK) ? 3f : 1.5f));
        }
        return chart;
    }
}
