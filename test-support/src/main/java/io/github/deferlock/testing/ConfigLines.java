package io.github.deferlock.testing;

import java.util.List;
import java.util.Objects;

/** The "each config line once" rule shared by the deployment builders. Not instantiable. */
final class ConfigLines {

    private ConfigLines() {}

    /** Adds {@code name value} to {@code lines}, refusing a second value for the same name. */
    static void add(List<String[]> lines, String name, String value) {
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(value, "value cannot be null");
        for (String[] s : lines) {
            if (s[0].equals(name)) {
                throw new IllegalStateException(name + " was already set to '" + s[1] + "'");
            }
        }
        lines.add(new String[] {name, value});
    }
}
