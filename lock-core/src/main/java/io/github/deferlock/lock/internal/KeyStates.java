package io.github.deferlock.lock.internal;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link KeyState}s of one engine by lock name. A state stays while it has users (acquisitions in
 * progress plus holds) and goes with the last one, so two threads after the same name always share one state.
 * Threadsafe: user counts change only inside the map's {@code compute}.
 */
final class KeyStates {
    private final ConcurrentHashMap<String, KeyState> states = new ConcurrentHashMap<>();

    /** The state of {@code name} with one more user; created when there is none. */
    KeyState enter(String name, byte[] key) {
        return states.compute(name, (n, s) -> {
            KeyState st = s == null ? new KeyState(n, key) : s;
            st.addUser();
            return st;
        });
    }

    /** One user of {@code st} less; the state goes with its last user. */
    void exit(KeyState st) {
        states.computeIfPresent(st.name, (n, s) -> s != st || s.removeUser() ? s : null);
    }

    /** The state of {@code name} if any thread of this JVM holds or wants it, else null. */
    KeyState existing(String name) {
        return states.get(name);
    }

    /** The states now present. */
    Collection<KeyState> all() {
        return states.values();
    }
}
