package io.github.deferlock.dashboard;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium from the system's packages ({@code /usr/bin/chromium} and {@code /usr/bin/chromedriver},
 * or the paths in the system properties {@code deferlock.chromium} and {@code deferlock.chromedriver}), driven
 * by Selenium with the driver given explicitly, so Selenium Manager never downloads anything. Each browser
 * has a fresh profile directory and no background networking.
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Paths.get(System.getProperty("deferlock.chromium", "/usr/bin/chromium"));
    static final Path CHROMEDRIVER = Paths.get(System.getProperty("deferlock.chromedriver", "/usr/bin/chromedriver"));
    static final Path SCREENSHOTS = Paths.get("target", "screenshots");

    /** Selenium warns that it has no CDP binding for this Chromium; the tests use WebDriver only. */
    private static final Logger CDP_LOG = Logger.getLogger("org.openqa.selenium.devtools");

    final ChromeDriver driver;
    private final ChromeDriverService service;
    private final Path profile;

    private Browser() throws IOException {
        CDP_LOG.setLevel(Level.SEVERE);
        profile = Files.createTempDirectory("deferlock-chromium-");
        service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .withLogFile(new File("target/chromedriver.log"))
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--window-size=1400,1100",
                "--user-data-dir=" + profile);
        driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }

    /**
     * Starts a browser, or skips the test (one line saying why) when Chromium or its driver is missing.
     */
    static Browser startOrSkip() throws IOException {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            String why = "browser tests skipped: " + CHROMIUM + " or " + CHROMEDRIVER
                    + " is missing (apt-get install chromium chromium-driver)";
            System.out.println(why);
            Assumptions.abort(why);
        }
        return new Browser();
    }

    /** Saves a screenshot as {@code target/screenshots/<name>.png}. */
    Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path target = SCREENSHOTS.resolve(name + ".png");
            Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), target, StandardCopyOption.REPLACE_EXISTING);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            driver.quit();
        } finally {
            service.stop();
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }
}
