package io.github.deferlock.delay;

import java.util.HashMap;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ScheduleSpecParser}s of this process: the built-in {@code rate} and {@code delay}, and those {@link ServiceLoader} finds
 * (once, at first use). Threadsafe.
 */
final class ScheduleSpecs {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleSpecs.class);

    private ScheduleSpecs() {}

    private static final class Holder {
        static final Map<String, ScheduleSpecParser> PARSERS = load();
    }

    private static Map<String, ScheduleSpecParser> load() {
        Map<String, ScheduleSpecParser> parsers = new HashMap<>();
        parsers.put(FixedRate.KIND, new ScheduleSpecParser() {
            @Override
            public String kind() {
                return FixedRate.KIND;
            }

            @Override
            public ScheduleSpec parse(String text) {
                return FixedRate.parse(text);
            }
        });
        parsers.put(FixedDelay.KIND, new ScheduleSpecParser() {
            @Override
            public String kind() {
                return FixedDelay.KIND;
            }

            @Override
            public ScheduleSpec parse(String text) {
                return FixedDelay.parse(text);
            }
        });
        try {
            for (ScheduleSpecParser p :
                    ServiceLoader.load(ScheduleSpecParser.class, ScheduleSpecs.class.getClassLoader())) {
                parsers.putIfAbsent(p.kind(), p);
            }
        } catch (ServiceConfigurationError e) {
            LOG.error("cannot load the schedule spec parsers: {}", e.toString());
        }
        return Map.copyOf(parsers);
    }

    /** True when this process reads specs of {@code kind}. */
    static boolean knows(String kind) {
        return Holder.PARSERS.containsKey(kind);
    }

    /** The kind of a stored spec: the text before the first {@code ':'}. */
    static String kindOf(String stored) {
        int colon = stored.indexOf(':');
        return colon < 0 ? "" : stored.substring(0, colon);
    }

    /** Reads a stored spec, {@code <kind>:<text>}. */
    static ScheduleSpec parse(String stored) {
        int colon = stored.indexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException("schedule spec '" + stored + "' is not <kind>:<text>");
        }
        String kind = stored.substring(0, colon);
        ScheduleSpecParser parser = Holder.PARSERS.get(kind);
        if (parser == null) {
            throw new IllegalArgumentException("schedule spec '" + stored + "' is of kind '" + kind
                    + "', which no ScheduleSpecParser on this process's class path reads"
                    + (kind.equals("cron") ? " (add io.github.deferlock:deferlock-cron)" : "")
                    + "; known kinds: " + Holder.PARSERS.keySet());
        }
        return parser.parse(stored.substring(colon + 1));
    }
}
