package io.github.deferlock.redis.internal;

import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;

/**
 * The Lua include step: a line {@code --@include <fragment>.lua} in a script is replaced by the fragment's
 * text, so a piece shared by several scripts (parsing a job envelope, publishing a notice) is written once.
 * A fragment is looked up first next to the script (the module's own fragments), then among the fragments of
 * this module ({@code notice.lua}). Each fragment is included at most once per script (a second include of
 * it is dropped), fragments may include fragments, and a fragment that includes itself (directly or not)
 * is an error. Resolved when the script is
 * loaded; Redis sees one plain script. Stateless.
 */
public final class LuaIncludes {
    /** The directive; the rest of the line names the fragment. */
    public static final String DIRECTIVE = "--@include ";

    private LuaIncludes() {}

    /**
     * The text of {@code file} with its includes resolved.
     *
     * @throws IllegalStateException when the file or a fragment is missing, or fragments include each other
     */
    public static String resolve(String file, Function<String, InputStream> resources) {
        StringBuilder out = new StringBuilder();
        append(file, resources, out, new HashSet<>(), new ArrayDeque<>());
        return out.toString();
    }

    private static void append(
            String file,
            Function<String, InputStream> resources,
            StringBuilder out,
            Set<String> done,
            Deque<String> path) {
        path.addLast(file);
        String text = Script.read(open(file, resources, path.size() == 1), file);
        for (String line : text.split("\n", -1)) {
            String trimmed = line.strip();
            if (trimmed.startsWith(DIRECTIVE)) {
                String fragment = trimmed.substring(DIRECTIVE.length()).strip();
                if (path.contains(fragment)) {
                    throw new IllegalStateException(
                            "Lua include cycle: " + String.join(" -> ", path) + " -> " + fragment);
                }
                if (done.add(fragment)) {
                    append(fragment, resources, out, done, path);
                }
            } else {
                out.append(line).append('\n');
            }
        }
        path.removeLast();
    }

    private static InputStream open(String file, Function<String, InputStream> resources, boolean top) {
        InputStream in = resources.apply(file);
        if (in == null && !top) {
            in = LuaIncludes.class.getResourceAsStream(file);
        }
        if (in == null) {
            throw new IllegalStateException((top ? "script" : "Lua fragment") + " resource is missing: " + file);
        }
        return in;
    }
}
