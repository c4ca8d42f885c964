package io.github.deferlock.testing;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Sends POSIX signals to processes through {@code kill(1)}. Threadsafe; not instantiable. */
final class Signals {

    private Signals() {}

    /** Sends {@code SIG<name>} (for example {@code STOP}, {@code CONT}, {@code KILL}) to the process. */
    static void send(long pid, String name) {
        try {
            Process p = new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("kill -" + name + " " + pid + " did not finish");
            }
            if (p.exitValue() != 0) {
                String out = new String(p.getInputStream().readAllBytes()).strip();
                throw new IllegalStateException("kill -" + name + " " + pid + " failed: " + out);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill -" + name + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted sending SIG" + name + " to " + pid, e);
        }
    }
}
