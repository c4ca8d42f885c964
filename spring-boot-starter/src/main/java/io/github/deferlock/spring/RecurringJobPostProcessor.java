package io.github.deferlock.spring;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.beans.factory.config.BeanPostProcessor;

/** Collects the {@code @RecurringJob} methods of every bean, checked; {@link RecurringJobs} runs them. */
final class RecurringJobPostProcessor implements BeanPostProcessor {

    /** One annotated method. */
    record Found(String beanName, Method method, RecurringJob annotation) {}

    private final List<Found> found = new CopyOnWriteArrayList<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        AnnotatedMethods.of(bean, RecurringJob.class).forEach((method, annotation) -> {
            if (method.getParameterCount() != 0) {
                throw new IllegalStateException(
                        "@RecurringJob on " + method.getDeclaringClass().getName() + "." + method.getName()
                                + ": the method must take no parameter");
            }
            found.add(new Found(beanName, method, annotation));
        });
        return bean;
    }

    List<Found> methods() {
        return List.copyOf(found);
    }
}
