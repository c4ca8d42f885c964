/**
 * The read model and safe actions of the deferlock ops tools (the command-line tool and the dashboard). Only
 * {@code io.github.deferlock.inspect} is API.
 */
module io.github.deferlock.inspect {
    requires transitive redis.clients.jedis;
    requires transitive io.github.deferlock.delay;
    requires io.github.deferlock.redis;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports io.github.deferlock.inspect;
}
