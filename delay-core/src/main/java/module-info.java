/** The reliable Redis delay queue and its workers. Only {@code io.github.deferlock.delay} is API. */
module io.github.deferlock.delay {
    requires transitive redis.clients.jedis;
    requires transitive com.fasterxml.jackson.databind;
    requires io.github.deferlock.redis;
    requires org.slf4j;

    exports io.github.deferlock.delay;

    uses io.github.deferlock.delay.ScheduleSpecParser;
}
