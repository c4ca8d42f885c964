package io.github.deferlock.spring;

import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.lock.RateLimit;
import java.lang.reflect.Method;
import java.time.Duration;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/** One {@code @RateLimited} method, checked once at startup: its parsed key, limit, strategy and wait. */
record RateLimitedMethod(
        Method method,
        Expression key,
        String keySource,
        RateLimit limit,
        OnConflict.Blocking onConflict,
        Duration maxWait) {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();

    /**
     * Checks {@code annotation} on {@code method}.
     *
     * @throws IllegalStateException naming the method and the attribute when something is wrong
     */
    static RateLimitedMethod of(Method method, RateLimited annotation) {
        String where = "@RateLimited on " + method.getDeclaringClass().getName() + "." + method.getName();
        if (annotation.key().isBlank()) {
            throw new IllegalStateException(where + ": key cannot be empty");
        }
        Expression key;
        try {
            key = PARSER.parseExpression(annotation.key());
        } catch (ParseException e) {
            throw new IllegalStateException(
                    where + ": key '" + annotation.key() + "' is not a SpEL expression: " + e.getMessage(), e);
        }
        if (!(annotation.onConflict().onConflict() instanceof OnConflict.Blocking blocking)) {
            throw new IllegalStateException(where + ": onConflict must be THROW or SLEEP_RETRY, not DEFER (a deferred"
                    + " call needs a lock to park behind: use @WithLock, or ConflictAwareHandler.Builder.rateLimit)");
        }
        Duration per = duration(where, "per", annotation.per());
        Duration maxWait = annotation.maxWait().isEmpty() ? null : duration(where, "maxWait", annotation.maxWait());
        if (maxWait != null && blocking != OnConflict.SLEEP_RETRY) {
            throw new IllegalStateException(where + ": maxWait applies to SLEEP_RETRY only, not " + blocking);
        }
        RateLimit limit;
        try {
            limit = RateLimit.of(annotation.rate(), per);
            if (annotation.burst() != 0) {
                limit = limit.withBurst(annotation.burst());
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(where + ": " + e.getMessage(), e);
        }
        return new RateLimitedMethod(method, key, annotation.key(), limit, blocking, maxWait);
    }

    private static Duration duration(String where, String attribute, String text) {
        try {
            Duration d = DurationStyle.detectAndParse(text);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalStateException(where + ": " + attribute + " must be positive, not " + text);
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    where + ": " + attribute + " '" + text + "' is not a duration such as 500ms, 2s or PT1M", e);
        }
    }
}
