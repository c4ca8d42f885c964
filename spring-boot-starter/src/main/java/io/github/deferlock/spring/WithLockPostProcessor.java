package io.github.deferlock.spring;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Finds {@code @WithLock} methods, checks each once (a bad annotation fails the start, naming the method), and
 * wraps their beans in a proxy whose lock advice runs outside any other advice (so a transaction commits before
 * the lock is released).
 */
final class WithLockPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements SmartInitializingSingleton {

    private static final long serialVersionUID = 1L;

    private transient WithLockInterceptor interceptor;

    WithLockPostProcessor() {
        setBeforeExistingAdvisors(true);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        interceptor = new WithLockInterceptor(beanFactory);
        this.advisor =
                new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, WithLock.class, true), interceptor);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        AnnotatedMethods.of(bean, WithLock.class)
                .forEach((method, annotation) -> interceptor.register(LockedMethod.of(beanName, method, annotation)));
        return super.postProcessAfterInitialization(bean, beanName);
    }

    WithLockInterceptor interceptor() {
        return interceptor;
    }

    @Override
    public void afterSingletonsInstantiated() {
        interceptor.registerDeferHandlers();
    }
}
