package io.github.deferlock.delay;

/**
 * Reads the stored text of one kind of {@link ScheduleSpec}; a service ({@link java.util.ServiceLoader}): a module
 * that adds a kind declares {@code provides io.github.deferlock.delay.ScheduleSpecParser with …} in its {@code
 * module-info.java} and lists the class in {@code META-INF/services/io.github.deferlock.delay.ScheduleSpecParser}.
 *
 * <p>A worker that meets a schedule whose kind no parser on its class path reads logs an error once and leaves the
 * schedule to the workers of other processes; it never drops it. Implementations must be threadsafe and have a
 * public no-argument constructor.
 */
public interface ScheduleSpecParser {

    /** The kind this parser reads ({@link ScheduleSpec#kind()}). */
    String kind();

    /**
     * The spec stored as {@code text}.
     *
     * @throws IllegalArgumentException when the text is not a spec of this kind
     */
    ScheduleSpec parse(String text);
}
