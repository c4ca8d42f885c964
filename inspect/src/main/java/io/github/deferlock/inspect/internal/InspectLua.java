package io.github.deferlock.inspect.internal;

import io.github.deferlock.redis.internal.Script;

/** The inspector's Lua scripts: the {@code .lua} resources next to this class, run by redis-support's {@link Script}. */
public final class InspectLua {
    private InspectLua() {}

    /** Loads {@code <name>.lua}. */
    public static Script load(String name) {
        return Script.load(r -> InspectLua.class.getResourceAsStream(r), name + ".lua");
    }
}
