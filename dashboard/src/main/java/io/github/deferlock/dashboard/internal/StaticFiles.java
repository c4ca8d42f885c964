package io.github.deferlock.dashboard.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The page's files, read once from the classpath: the page, its script and style, and uPlot from its webjar
 * (served with the page: no CDN). Immutable and threadsafe.
 */
public final class StaticFiles {

    /** One file: its bytes and content type. */
    public record File(byte[] body, String contentType) {}

    private static final String OWN = "/io/github/deferlock/dashboard/static/";

    private final Map<String, File> files;

    /** Reads every file; a missing one is an {@link IllegalStateException} naming it. */
    public StaticFiles() {
        String uplot = "/META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
        files = Map.of(
                "", read(OWN + "index.html", "text/html; charset=utf-8"),
                "static/dashboard.js", read(OWN + "dashboard.js", "text/javascript; charset=utf-8"),
                "static/dashboard.css", read(OWN + "dashboard.css", "text/css; charset=utf-8"),
                "static/uPlot.iife.min.js", read(uplot + "uPlot.iife.min.js", "text/javascript; charset=utf-8"),
                "static/uPlot.min.css", read(uplot + "uPlot.min.css", "text/css; charset=utf-8"));
    }

    /** The file at {@code path} (relative to the dashboard's root, {@code ""} for the page). */
    public Optional<File> get(String path) {
        return Optional.ofNullable(files.get(path));
    }

    private static String uplotVersion() {
        Properties p = new Properties();
        try (InputStream in = StaticFiles.class.getResourceAsStream("versions.properties")) {
            if (in == null) {
                throw new IllegalStateException("versions.properties is missing from the dashboard jar");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("uplot");
    }

    private static File read(String resource, String contentType) {
        try (InputStream in = StaticFiles.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the classpath");
            }
            return new File(in.readAllBytes(), contentType);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
