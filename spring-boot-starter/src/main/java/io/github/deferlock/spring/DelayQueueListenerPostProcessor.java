package io.github.deferlock.spring;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.beans.factory.config.BeanPostProcessor;

/** Collects the {@code @DelayQueueListener} methods of every bean, checked; {@link DeferlockWorkers} runs them. */
final class DelayQueueListenerPostProcessor implements BeanPostProcessor {

    private final List<ListenerMethod> found = new CopyOnWriteArrayList<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        AnnotatedMethods.of(bean, DelayQueueListener.class)
                .forEach((method, annotation) -> found.add(ListenerMethod.of(beanName, method, annotation)));
        return bean;
    }

    List<ListenerMethod> listeners() {
        return List.copyOf(found);
    }
}
