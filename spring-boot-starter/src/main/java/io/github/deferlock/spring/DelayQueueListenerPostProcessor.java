package io.github.deferlock.spring;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/** Collects the {@code @DelayQueueListener} methods of every bean, checked; {@link DeferlockWorkers} runs them. */
final class DelayQueueListenerPostProcessor implements BeanPostProcessor {

    private final List<ListenerMethod> found = new CopyOnWriteArrayList<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, DelayQueueListener> methods =
                MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<DelayQueueListener>)
                        m -> AnnotatedElementUtils.findMergedAnnotation(m, DelayQueueListener.class));
        methods.forEach((method, annotation) -> found.add(ListenerMethod.of(beanName, method, annotation)));
        return bean;
    }

    List<ListenerMethod> listeners() {
        return List.copyOf(found);
    }
}
