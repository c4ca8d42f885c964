package io.github.deferlock.cli;

/** A command line that parses but asks for something the tool refuses; exit {@link ExitCode#USAGE}. */
final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
