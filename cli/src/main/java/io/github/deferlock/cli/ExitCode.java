package io.github.deferlock.cli;

/**
 * The tool's exit codes (README, "Command-line tool"). Scripts may rely on them.
 *
 * <ul>
 *   <li>{@value #OK} — done;
 *   <li>{@value #NOT_FOUND} — something named on the command line does not exist: the queue (for {@code queue
 *       stats} and {@code dead list}: it never held a job and no worker announced it), the job, the lock, or (for
 *       {@code dead requeue|purge}) at least one id is not a dead letter; the other ids were still handled;
 *   <li>{@value #USAGE} — bad arguments or options (an unknown command, a missing name, an invalid queue
 *       name, a requeue-all without the right {@code --confirm}); nothing was changed;
 *   <li>{@value #REDIS} — Redis could not be reached or refused a command (connection, TLS, authentication,
 *       ACL {@code NOPERM}, timeout);
 *   <li>{@value #INTERNAL} — a defect of the tool (please report it);
 *   <li>{@value #AUDIT} — the command was done, but its audit record could not be written to Redis (stderr says
 *       why; docs/ops.md, "Audit"). A command that failed keeps its own code.
 * </ul>
 */
final class ExitCode {
    static final int OK = 0;
    static final int NOT_FOUND = 1;
    static final int USAGE = 2;
    static final int REDIS = 3;
    static final int INTERNAL = 4;
    static final int AUDIT = 5;

    private ExitCode() {}
}
