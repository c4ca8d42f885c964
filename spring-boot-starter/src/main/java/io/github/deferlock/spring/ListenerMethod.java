package io.github.deferlock.spring;

import io.github.deferlock.delay.Job;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/**
 * One {@code @DelayQueueListener} method, checked at startup: its bean, its queue's payload type and whether it
 * takes the {@link Job} or the payload.
 */
record ListenerMethod(
        String beanName, Method method, DelayQueueListener annotation, Class<?> payloadType, boolean takesJob) {

    /**
     * Checks {@code method}.
     *
     * @throws IllegalStateException naming the method when it does not take exactly one payload or {@code Job<T>}
     */
    static ListenerMethod of(String beanName, Method method, DelayQueueListener annotation) {
        String where = "@DelayQueueListener on " + method.getDeclaringClass().getName() + "." + method.getName();
        if (method.getParameterCount() != 1) {
            throw new IllegalStateException(
                    where + " must take one parameter, the payload or Job<payload>, not " + method.getParameterCount());
        }
        if (annotation.queue().isBlank()) {
            throw new IllegalStateException(where + ": queue cannot be empty");
        }
        Class<?> raw = method.getParameterTypes()[0];
        if (raw != Job.class) {
            return new ListenerMethod(beanName, method, annotation, boxed(raw), false);
        }
        Type generic = method.getGenericParameterTypes()[0];
        if (generic instanceof ParameterizedType p && p.getActualTypeArguments()[0] instanceof Class<?> c) {
            return new ListenerMethod(beanName, method, annotation, c, true);
        }
        throw new IllegalStateException(
                where + " takes " + generic.getTypeName() + ": name the payload class, as in Job<Email>");
    }

    private static Class<?> boxed(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        return java.lang.invoke.MethodType.methodType(c).wrap().returnType();
    }
}
