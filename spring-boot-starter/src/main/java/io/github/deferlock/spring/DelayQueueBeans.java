package io.github.deferlock.spring;

import io.github.deferlock.delay.DelayQueue;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * Registers a {@code DelayQueue<T>} bean named {@code <name>DelayQueue} for each {@code
 * deferlock.queues.<name>.payload-type}, so the application can inject {@code DelayQueue<Email>} directly. Each
 * comes from {@link DelayQueues}, so it is the same object {@code @DelayQueueListener} workers use.
 */
final class DelayQueueBeans implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        if (!(registry instanceof BeanFactory factory)) {
            return;
        }
        if (!Binder.get(environment).bind("deferlock.enabled", Boolean.class).orElse(true)) {
            return;
        }
        Map<String, DeferlockProperties.Queue> queues = Binder.get(environment)
                .bind("deferlock.queues", Bindable.mapOf(String.class, DeferlockProperties.Queue.class))
                .orElse(Map.of());
        queues.forEach((name, settings) -> {
            Class<?> type = settings.getPayloadType();
            if (type == null) {
                return;
            }
            RootBeanDefinition def = new RootBeanDefinition(DelayQueue.class);
            def.setTargetType(ResolvableType.forClassWithGenerics(DelayQueue.class, type));
            def.setInstanceSupplier(() -> factory.getBean(DelayQueues.class).get(name, type));
            registry.registerBeanDefinition(name + "DelayQueue", def);
        });
    }
}
