package io.github.deferlock.lock.internal;

import io.github.deferlock.redis.internal.Script;

/** The lock's Lua scripts, read from the resources next to this class (their includes resolved). */
final class LockLua {
    static final Script ACQUIRE = load("acquire.lua");
    static final Script RELEASE = load("release.lua");
    static final Script RENEW = load("renew.lua");
    static final Script LEAVE = load("leave.lua");
    static final Script PARK = load("park.lua");
    static final Script DRAIN = load("drain.lua");
    static final Script POP = load("pop.lua");
    static final Script DRAIN_NEXT = load("drain-next.lua");
    static final Script ORPHAN = load("orphan.lua");
    static final Script RATE = load("rate.lua");
    static final Script PERMIT_ACQUIRE = load("permit-acquire.lua");
    static final Script PERMIT_RELEASE = load("permit-release.lua");
    static final Script PERMIT_RENEW = load("permit-renew.lua");
    static final Script PERMIT_LEAVE = load("permit-leave.lua");
    static final Script PERMIT_HOLDERS = load("permit-holders.lua");

    private LockLua() {}

    private static Script load(String file) {
        return Script.load(r -> LockLua.class.getResourceAsStream(r), file);
    }
}
