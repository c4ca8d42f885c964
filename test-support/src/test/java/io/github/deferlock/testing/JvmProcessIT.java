package io.github.deferlock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class JvmProcessIT {

    /** A child process: prints READY with its pid, then blocks reading stdin. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            System.out.println("READY " + ProcessHandle.current().pid() + " " + String.join(",", args));
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    @Test
    void start_runsMainFromTheTestClasspath_andKillEndsIt() {
        try (JvmProcess child = JvmProcess.start(Child.class, "a", "b")) {
            String line = child.awaitLine("READY", Duration.ofSeconds(30));
            assertThat(line).isEqualTo("READY " + child.pid() + " a,b");
            child.kill();
            assertThat(child.isAlive()).isFalse();
        }
    }

    @Test
    void pauseAndResume_keepTheProcessAlive() {
        try (JvmProcess child = JvmProcess.start(Child.class)) {
            child.awaitLine("READY", Duration.ofSeconds(30));
            child.pause();
            assertThat(child.isAlive()).isTrue();
            child.resume();
            assertThat(child.isAlive()).isTrue();
        }
    }
}
