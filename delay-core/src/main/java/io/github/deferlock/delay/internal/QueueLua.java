package io.github.deferlock.delay.internal;

import io.github.deferlock.redis.internal.Script;

/** Loads the queue's Lua scripts from the resources next to this class (their includes resolved). */
public final class QueueLua {
    private QueueLua() {}

    /** Loads {@code <name>.lua}. */
    public static Script load(String name) {
        return Script.load(r -> QueueLua.class.getResourceAsStream(r), name + ".lua");
    }
}
