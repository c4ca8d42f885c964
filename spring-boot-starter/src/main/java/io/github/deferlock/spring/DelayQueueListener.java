package io.github.deferlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a worker for a delay queue that hands each due job to this bean method. The method takes one parameter:
 * the payload ({@code void send(Email email)}) or the job ({@code void send(Job<Email> job)}, for its id,
 * attempts and due time); its type is the queue's payload type. Returning acknowledges the job; throwing retries
 * it with the queue's backoff and dead-letters it after its max attempts ({@code deferlock.queues.<name>.*}).
 *
 * <pre>{@code
 * @DelayQueueListener(queue = "emails", concurrency = "8")
 * void send(Email email) { mail.send(email); }
 * }</pre>
 *
 * <p>Workers start once the application context is ready and stop gracefully within {@code
 * spring.lifecycle.timeout-per-shutdown-phase}: they stop claiming, give back jobs not started, and let running
 * ones finish (those still running at the end are interrupted and given back).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayQueueListener {

    /** The queue's name; placeholders such as {@code ${emails.queue}} are resolved. */
    String queue();

    /** Handler threads, a number or a placeholder (default "1"). */
    String concurrency() default "1";
}
