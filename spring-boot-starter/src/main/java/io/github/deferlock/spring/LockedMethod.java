package io.github.deferlock.spring;

import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.lock.DistributedPermits;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * One {@code @WithLock} method, checked once at startup: its parsed key, strategy, lease and wait, and for DEFER
 * the handler name and what the caller gets back.
 */
record LockedMethod(
        String beanName,
        Method method,
        Expression key,
        String keySource,
        OnConflict onConflict,
        Duration lease,
        Duration maxWait,
        String handlerName,
        boolean returnsOutcome,
        int permits) {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();

    /**
     * Checks {@code annotation} on {@code method} of bean {@code beanName}.
     *
     * @throws IllegalStateException naming the method and the attribute when something is wrong
     */
    static LockedMethod of(String beanName, Method method, WithLock annotation) {
        String where = "@WithLock on " + method.getDeclaringClass().getName() + "." + method.getName();
        Expression key;
        try {
            key = PARSER.parseExpression(annotation.key());
        } catch (ParseException e) {
            throw new IllegalStateException(
                    where + ": key '" + annotation.key() + "' is not a SpEL expression: " + e.getMessage(), e);
        }
        if (annotation.key().isBlank()) {
            throw new IllegalStateException(where + ": key cannot be empty");
        }
        OnConflict strategy = annotation.onConflict().onConflict();
        Duration lease = duration(where, "lease", annotation.lease());
        if (lease != null && lease.toMillis() < 30) {
            throw new IllegalStateException(where + ": lease must be at least 30ms, not " + annotation.lease());
        }
        Duration maxWait = duration(where, "maxWait", annotation.maxWait());
        if (maxWait != null && strategy != OnConflict.SLEEP_RETRY) {
            throw new IllegalStateException(where + ": maxWait applies to OnConflict.SLEEP_RETRY only, not " + strategy
                    + " (maxWait = \"" + annotation.maxWait() + "\")");
        }
        if (annotation.permits() < 1 || annotation.permits() > DistributedPermits.MAX_LIMIT) {
            throw new IllegalStateException(where + ": permits must be within [1, " + DistributedPermits.MAX_LIMIT
                    + "], not " + annotation.permits());
        }
        boolean returnsOutcome = method.getReturnType() == LockOutcome.class;
        String handler = null;
        if (strategy == OnConflict.DEFER) {
            if (!returnsOutcome && method.getReturnType() != void.class) {
                throw new IllegalStateException(where + " uses OnConflict.DEFER but returns "
                        + method.getGenericReturnType().getTypeName()
                        + ": a deferred call has no value yet, so return LockOutcome<...> (the caller sees"
                        + " isDeferred()) or void (a normal return means accepted)");
            }
            handler = annotation.name().isEmpty()
                    ? method.getDeclaringClass().getSimpleName() + "." + method.getName()
                    : annotation.name();
            int bytes = handler.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > 100) {
                throw new IllegalStateException(
                        where + ": the deferral handler name '" + handler + "' is over 100 bytes: set name");
            }
        } else if (!annotation.name().isEmpty()) {
            throw new IllegalStateException(where + ": name applies to OnConflict.DEFER only, not " + strategy);
        }
        return new LockedMethod(
                beanName,
                method,
                key,
                annotation.key(),
                strategy,
                lease,
                maxWait,
                handler,
                returnsOutcome,
                annotation.permits());
    }

    private static Duration duration(String where, String attribute, String text) {
        if (text.isEmpty()) {
            return null;
        }
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
